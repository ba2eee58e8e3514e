#include "token_schedule.hpp"

#include <algorithm>
#include <cmath>

namespace benchd::loadgen {

TokenSchedule::TokenSchedule(double requests_per_second, std::uint32_t segment_index,
                             std::uint32_t segment_count)
    : interval_(std::max<std::int64_t>(1, std::llround(1e9 * segment_count / requests_per_second))),
      next_slot_nanos_(std::llround(1e9 * segment_index / requests_per_second)) {}

std::chrono::nanoseconds TokenSchedule::acquire(std::chrono::nanoseconds now) noexcept {
  std::int64_t next = next_slot_nanos_.load(std::memory_order_relaxed);
  for (;;) {
    const std::int64_t slot = std::max(next, now.count());
    if (next_slot_nanos_.compare_exchange_weak(next, slot + interval_.count(),
                                               std::memory_order_relaxed)) {
      return std::chrono::nanoseconds(slot);
    }
  }
}

}  // namespace benchd::loadgen
