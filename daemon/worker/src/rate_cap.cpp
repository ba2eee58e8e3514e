#include "rate_cap.hpp"

#include <algorithm>
#include <thread>

namespace benchd::worker {

RateCap::RateCap(std::uint32_t calls_per_second) : calls_per_second_(calls_per_second) {
  if (calls_per_second_ > 0) {
    interval_ = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::nanoseconds(1'000'000'000LL / calls_per_second_));
  }
}

void RateCap::wait() {
  if (calls_per_second_ == 0) {
    return;
  }
  std::chrono::steady_clock::time_point slot;
  {
    const std::lock_guard lock(mutex_);
    slot = std::max(std::chrono::steady_clock::now(), next_free_);
    next_free_ = slot + interval_;
  }
  std::this_thread::sleep_until(slot);
}

}  // namespace benchd::worker
