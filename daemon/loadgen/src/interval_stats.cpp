#include "interval_stats.hpp"

#include <benchd/measurement/load_snapshot.hpp>

namespace benchd::loadgen {

void IntervalStats::recordRequest(
    std::optional<measurement::ErrorClass> error, std::chrono::nanoseconds request_latency,
    std::optional<std::chrono::nanoseconds> corrected_latency) noexcept {
  if (error) {
    ++counters.errors[*error];
    if (request_latency < measurement::kRequestedFailureThreshold) {
      return;
    }
  } else {
    ++counters.requests_ok;
  }
  ++counters.requests_requested;
  if (corrected_latency) {
    latency.recordDuration(*corrected_latency);
    uncorrected_latency.recordDuration(request_latency);
  } else {
    latency.recordDuration(request_latency);
  }
}

void IntervalStats::add(const IntervalStats& other) noexcept {
  latency.add(other.latency);
  uncorrected_latency.add(other.uncorrected_latency);
  counters += other.counters;
}

void IntervalStats::reset() noexcept {
  latency.reset();
  uncorrected_latency.reset();
  counters = {};
}

}  // namespace benchd::loadgen
