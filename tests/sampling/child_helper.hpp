#pragma once

#include <cstdint>
#include <sys/types.h>

namespace benchd::sampling::testing {

/// benchd_sampling_load_helper running with `threads` extra threads and `fds` extra
/// descriptors, ready once the constructor returns. The destructor ends and reaps it.
class LoadHelper {
 public:
  LoadHelper(unsigned threads, unsigned fds);
  ~LoadHelper();
  LoadHelper(const LoadHelper&) = delete;
  LoadHelper& operator=(const LoadHelper&) = delete;

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// The helper's own count of its open descriptors once ready.
  [[nodiscard]] std::uint64_t openFds() const noexcept { return open_fds_; }

  /// Closes its stdin, so it exits, and waits until it is a zombie (exited, not reaped).
  void exitWithoutReaping();
  /// Reaps it (after exitWithoutReaping(), or ending it first).
  void reap();

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::uint64_t open_fds_ = 0;
  bool reaped_ = false;
};

}  // namespace benchd::sampling::testing
