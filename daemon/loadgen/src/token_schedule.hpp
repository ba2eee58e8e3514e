#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace benchd::loadgen {

/// The global request-rate cap of closed-model sub-scenarios (k6's "rps" option): one schedule of
/// send slots, 1/rate apart, shared by every VU of every thread. A VU ready to send takes the
/// next slot and waits for it, so VUs take turns. A slot is never placed before the moment it
/// is taken: when the VUs cannot keep up, the schedule does not build up a debt to be sent in a
/// burst later (like a token bucket holding one token).
///
/// Thread-safe and lock-free.
class TokenSchedule {
 public:
  /// Precondition: requests_per_second > 0, segment_index < segment_count. With segments
  /// (EngineOptions::segment) the schedule is segment i's share of the row's: the slots
  /// (j × count + i) / rate, that is 1/rate × count apart from i/rate on.
  explicit TokenSchedule(double requests_per_second, std::uint32_t segment_index = 0,
                         std::uint32_t segment_count = 1);

  /// Takes the next slot for a VU ready at `now` (since the phase start) and returns the slot's
  /// time, never before `now`.
  std::chrono::nanoseconds acquire(std::chrono::nanoseconds now) noexcept;

  [[nodiscard]] std::chrono::nanoseconds interval() const noexcept { return interval_; }

 private:
  std::chrono::nanoseconds interval_;
  std::atomic<std::int64_t> next_slot_nanos_{0};
};

}  // namespace benchd::loadgen
