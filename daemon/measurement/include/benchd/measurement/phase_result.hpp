#pragma once

#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/measurement/load_counters.hpp>
#include <benchd/measurement/load_snapshot.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace benchd::measurement {

/// A whole phase: the sums of its snapshots plus the generator's self-check. Totals equal the
/// sum of the snapshots delivered for the phase, histograms included.
struct PhaseResult {
  PhaseKind phase = PhaseKind::kTest;
  std::chrono::microseconds duration{0};  ///< from the phase start to the end of its last request
  std::uint32_t snapshot_count = 0;
  LatencyHistogram latency;              ///< merged interval histograms (see LoadSnapshot)
  LatencyHistogram uncorrected_latency;  ///< merged; open model only
  LoadCounters totals;

  double achieved_requests_per_second = 0.0;  ///< completed requests / duration
  double intended_requests_per_second = 0.0;  ///< 0 when the phase has no intended rate
  /// The most VUs active at once at any instant of the phase (the snapshots' peak_active_vus).
  std::uint32_t peak_active_vus = 0;

  std::uint32_t generator_threads = 0;
  std::uint32_t generator_cores = 0;
  double generator_cpu_percent_avg = 0.0;  ///< percent of one core, over the phase
  double generator_cpu_percent_max = 0.0;  ///< highest interval value
  std::chrono::microseconds generator_cpu_time{0};

  /// True when the generator could not keep up, so the phase must not be ranked as if it had
  /// (see judgeSaturation); `saturation_reason` says why, empty otherwise.
  bool generator_saturated = false;
  std::string saturation_reason;

  /// Host limits that may distort the phase but did not stop it (e.g. net.core.somaxconn below
  /// the connection count), one sentence each.
  std::vector<std::string> warnings;
};

}  // namespace benchd::measurement
