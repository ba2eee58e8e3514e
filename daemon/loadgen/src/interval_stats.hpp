#pragma once

#include <benchd/loadgen/error_class.hpp>
#include <benchd/loadgen/latency_histogram.hpp>
#include <benchd/loadgen/load_counters.hpp>

#include <chrono>
#include <optional>

namespace benchd::loadgen {

/// What one event-loop thread recorded since the last snapshot. Owned and written by that thread
/// only; the coordinator reads it through a handler posted to the thread (see LoopWorker).
struct IntervalStats {
  LatencyHistogram latency;
  LatencyHistogram uncorrected_latency;
  LoadCounters counters;

  /// Counts one finished request. `error` is nullopt for a 2xx response; `latency` runs from the
  /// actual send; `corrected_latency` (open model) from the intended send time. The request's
  /// latency enters the histograms when it succeeded or took at least
  /// kRequestedFailureThreshold (the original's "requested" samples).
  void recordRequest(std::optional<ErrorClass> error, std::chrono::nanoseconds latency,
                     std::optional<std::chrono::nanoseconds> corrected_latency) noexcept;

  void add(const IntervalStats& other) noexcept;
  void reset() noexcept;
};

}  // namespace benchd::loadgen
