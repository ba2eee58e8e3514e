#pragma once

#include <cstdint>
#include <span>

namespace benchd::agent {

/// One round trip to an agent's clock, all in microseconds since the Unix epoch: the
/// coordinator sent at t0 and received the answer at t3 (its clock); the agent received at t1
/// and answered at t2 (its clock).
struct ClockSample {
  std::int64_t t0 = 0;
  std::int64_t t1 = 0;
  std::int64_t t2 = 0;
  std::int64_t t3 = 0;
};

/// How far an agent's clock is from the coordinator's: agent time = coordinator time + offset,
/// known to within ±uncertainty (half the round trip it was measured on).
struct ClockOffset {
  std::int64_t offset_micros = 0;
  std::int64_t round_trip_micros = 0;
  std::int64_t uncertainty_micros = 0;
};

/// NTP's estimate on the sample with the shortest round trip, the one queueing delayed least:
/// offset = ((t1 - t0) + (t2 - t3)) / 2, round trip = (t3 - t0) - (t2 - t1). Pure. Throws
/// std::invalid_argument without samples or when a sample's stamps are out of order on either
/// clock (t3 < t0 or t2 < t1).
[[nodiscard]] ClockOffset estimateClockOffset(std::span<const ClockSample> samples);

}  // namespace benchd::agent
