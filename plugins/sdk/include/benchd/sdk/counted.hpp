#pragma once
// A count held while something lasts: a request in flight, an open connection. The thread
// plugins count these in atomics their stats() reads (CONTRACT.md section 9); the guard keeps
// every exit path of a handler (a departed client, an exception, the stop) from leaving a
// count behind.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

namespace benchd::sdk {

/// Adds one to `counter` on construction and takes it off at release() or destruction,
/// whichever comes first. Relaxed order: the counters are statistics read by stats(), not a
/// synchronisation point. Not thread-safe itself; the counter may be shared by any threads.
/// The counter must outlive the guard.
class Counted {
 public:
  explicit Counted(std::atomic<std::int64_t>& counter) : counter_(&counter) {
    counter_->fetch_add(1, std::memory_order_relaxed);
  }
  ~Counted() { release(); }
  Counted(const Counted&) = delete;
  Counted& operator=(const Counted&) = delete;

  /// Takes the one off now (e.g. once the answer is written, before the next read); later
  /// calls and the destructor do nothing.
  void release() noexcept {
    if (counter_ != nullptr)
      counter_->fetch_sub(1, std::memory_order_relaxed);
    counter_ = nullptr;
  }

 private:
  std::atomic<std::int64_t>* counter_;
};

/// The drain's wait of a thread plugin's stop(): polls `in_flight` every 5 ms until it is 0
/// (true) or `deadline` passes (false: requests will be cut off). Blocks the calling thread.
[[nodiscard]] inline bool waitForNoneInFlight(const std::atomic<std::int64_t>& in_flight,
                                              std::chrono::steady_clock::time_point deadline) {
  while (in_flight.load(std::memory_order_relaxed) > 0) {
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace benchd::sdk
