#pragma once

#include <chrono>
#include <ctime>
#include <thread>

namespace benchd::loadgen {

/// Reads the CPU time (user + system) consumed by one running thread, from any thread.
class ThreadCpuClock {
 public:
  /// Precondition: `thread` is running and stays joinable while the clock is read.
  explicit ThreadCpuClock(std::thread& thread);

  /// CPU time used so far; zero when the clock is unavailable.
  [[nodiscard]] std::chrono::nanoseconds used() const noexcept;

 private:
  clockid_t clock_id_{};
  bool valid_ = false;
};

/// How many CPUs this process may run on (its affinity mask), at least 1.
unsigned cpusAvailable() noexcept;

}  // namespace benchd::loadgen
