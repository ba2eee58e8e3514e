#pragma once

#include <sched.h>

#include <vector>

namespace benchd::runner {

/// Pins the calling thread to `cpus` for the object's lifetime (threads it creates meanwhile
/// inherit the mask) and restores the previous mask after. An empty list changes nothing.
/// Throws std::system_error when the kernel refuses the mask.
class ScopedThreadAffinity {
 public:
  explicit ScopedThreadAffinity(const std::vector<unsigned>& cpus);
  ~ScopedThreadAffinity();
  ScopedThreadAffinity(const ScopedThreadAffinity&) = delete;
  ScopedThreadAffinity& operator=(const ScopedThreadAffinity&) = delete;

 private:
  cpu_set_t previous_{};
  bool changed_ = false;
};

}  // namespace benchd::runner
