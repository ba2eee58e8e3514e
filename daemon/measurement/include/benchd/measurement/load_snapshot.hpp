#pragma once

#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/measurement/load_counters.hpp>

#include <chrono>
#include <cstdint>
#include <string_view>

namespace benchd::measurement {

/// Failures at least this slow count into the result latency histogram, faster ones only as
/// errors: the original's "requested" rule (failures faster than 10 ms never reached the server).
inline constexpr std::chrono::milliseconds kRequestedFailureThreshold{10};

/// Which phase of a scenario row a snapshot or result belongs to.
enum class PhaseKind : std::uint8_t {
  kWarmup = 1,  ///< same shape as the test; its data is discarded
  kTest,        ///< the measured phase
};

/// "warmup" or "test".
std::string_view phaseKindName(PhaseKind kind);

/// What the load generator saw during one interval (normally one second) of a phase. Delivered
/// to the engine's snapshot callback once per interval, in order, on the thread that runs the
/// phase; the callback may copy what it needs, the references die when it returns.
struct LoadSnapshot {
  PhaseKind phase = PhaseKind::kTest;
  std::uint32_t index = 0;  ///< 0-based interval number within the phase
  /// Interval start and length, relative to the phase start. Intervals are contiguous; all are
  /// one interval long except the last, which ends when the last request of the phase ended
  /// (it may be a little longer or shorter).
  std::chrono::microseconds start{0};
  std::chrono::microseconds duration{0};
  std::int64_t end_epoch_millis = 0;  ///< wall clock at the end of the interval

  /// Requested samples (2xx, or failures >= kRequestedFailureThreshold) that completed in the
  /// interval. Open model: latency from the INTENDED send time (coordinated omission
  /// corrected); closed model: from the actual send. Connect time is never included for closed
  /// models (like k6's http_req_duration).
  LatencyHistogram latency;
  /// Open model only: the same samples timed from the actual send (uncorrected); empty for
  /// closed-model requests.
  LatencyHistogram uncorrected_latency;
  LoadCounters counters;

  double achieved_requests_per_second = 0.0;  ///< completed (ok + error) per second
  /// Requests the plan meant to send per second: arrivals of open-model sub-scenarios plus the
  /// global rate cap of closed ones; 0 when the phase has no intended rate (closed model
  /// without a cap).
  double intended_requests_per_second = 0.0;
  /// At the end of the interval: closed model, VUs running (including those finishing their last
  /// request); open model, connections busy with a request.
  std::uint32_t active_vus = 0;
  /// The most VUs (as active_vus counts them) active at once at any instant of the interval,
  /// across all event loops; at least active_vus.
  std::uint32_t peak_active_vus = 0;
  /// CPU time of the load generator's event-loop threads over the interval, in percent of one
  /// core (so up to 100 * generator_cores).
  double generator_cpu_percent = 0.0;
  std::uint32_t generator_cores = 1;  ///< cores its threads may use: min(threads, affinity CPUs)
};

}  // namespace benchd::measurement
