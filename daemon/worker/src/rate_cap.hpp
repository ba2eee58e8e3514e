#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>

namespace benchd::worker {

/// A known capacity, the instrument behind the worker's benchd.max_rate: the calls into the core
/// take slots 1/N s apart, worker-wide, and each caller sleeps until its slot. So the worker
/// serves at most N such calls per second whatever its CPU and its concurrency model: an event
/// loop blocks in the sleep, a thread per request queues. A chain of depth d calls the core at
/// every level, so it holds N / (d + 1) requests per second. An idle worker banks no slots:
/// after a pause the next call goes at once and the ones after it 1/N apart again.
///
/// Thread-safety: wait() may be called from any number of threads at once.
class RateCap {
 public:
  /// `calls_per_second` 0: no cap, wait() returns at once.
  explicit RateCap(std::uint32_t calls_per_second);

  void wait();

  [[nodiscard]] std::uint32_t callsPerSecond() const noexcept { return calls_per_second_; }

 private:
  std::uint32_t calls_per_second_;
  std::chrono::steady_clock::duration interval_{};
  std::mutex mutex_;
  std::chrono::steady_clock::time_point next_free_{};  ///< guarded by mutex_
};

}  // namespace benchd::worker
