#include <benchd/agent/clock_offset.hpp>

#include <stdexcept>
#include <string>

namespace benchd::agent {

ClockOffset estimateClockOffset(std::span<const ClockSample> samples) {
  if (samples.empty())
    throw std::invalid_argument("no clock samples to estimate an offset from");
  const ClockSample* best = &samples.front();
  std::int64_t best_round_trip = 0;
  bool first = true;
  for (const ClockSample& sample : samples) {
    if (sample.t3 < sample.t0 || sample.t2 < sample.t1) {
      throw std::invalid_argument("a clock sample's stamps are out of order (t0 " +
                                  std::to_string(sample.t0) + ", t1 " + std::to_string(sample.t1) +
                                  ", t2 " + std::to_string(sample.t2) + ", t3 " +
                                  std::to_string(sample.t3) + ")");
    }
    const std::int64_t round_trip = (sample.t3 - sample.t0) - (sample.t2 - sample.t1);
    if (first || round_trip < best_round_trip) {
      best = &sample;
      best_round_trip = round_trip;
      first = false;
    }
  }
  ClockOffset offset;
  offset.offset_micros = ((best->t1 - best->t0) + (best->t2 - best->t3)) / 2;
  offset.round_trip_micros = best_round_trip < 0 ? 0 : best_round_trip;
  offset.uncertainty_micros = (offset.round_trip_micros + 1) / 2;
  return offset;
}

}  // namespace benchd::agent
