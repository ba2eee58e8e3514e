#pragma once

#include <cstdint>
#include <sys/types.h>

namespace benchd::sampling::testing {

/// Threads the sanitizer runtime of this build adds to a process once the process has started
/// a thread of its own: ThreadSanitizer's background thread (preset tsan). Counted in the
/// process's thread count like any other.
#if defined(__SANITIZE_THREAD__)
inline constexpr unsigned kRuntimeThreads = 1;
#else
inline constexpr unsigned kRuntimeThreads = 0;
#endif

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
