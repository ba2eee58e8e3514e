#pragma once

#include <benchd/measurement/error_class.hpp>
#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/measurement/load_counters.hpp>

#include <chrono>
#include <optional>

namespace benchd::loadgen {

/// What one event-loop thread recorded since the last snapshot. Owned and written by that thread
/// only; the coordinator reads it through a handler posted to the thread (see LoopWorker).
struct IntervalStats {
  measurement::LatencyHistogram latency;
  measurement::LatencyHistogram uncorrected_latency;
  measurement::LoadCounters counters;

  /// Counts one finished request. `error` is nullopt for a 2xx response; `latency` runs from the
  /// actual send; `corrected_latency` (open model) from the intended send time. The request's
  /// latency enters the histograms when it succeeded or took at least
  /// kRequestedFailureThreshold (the original's "requested" samples).
  void recordRequest(std::optional<measurement::ErrorClass> error, std::chrono::nanoseconds latency,
                     std::optional<std::chrono::nanoseconds> corrected_latency) noexcept;

  void add(const IntervalStats& other) noexcept;
  void reset() noexcept;
};

}  // namespace benchd::loadgen
