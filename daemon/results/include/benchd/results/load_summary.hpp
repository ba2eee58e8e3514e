#pragma once

#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/measurement/phase_result.hpp>
#include <benchd/scenario/workload.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::results {

// The result model of one load phase as `benchd load` reports it (and, in time, `benchd run` and
// the REST API): built once by makeLoadSummary, rendered by writeLoadReportText and
// writeLoadReportJson (load_report_text.hpp, load_report_json.hpp), which compute nothing.
// Every number a formatter prints is a field here, in the unit of the JSON report (the text
// report only changes units for display, e.g. bytes to MiB).
//
// Percentiles are numpy's linear ones (interpolatedPercentile in series.hpp), the ones
// `benchd run` computes for its summary metrics and per-second series: one rule, so one set of
// samples gives one p99 whichever command measured it, and a spot check with `benchd load` can be
// set beside a results.csv. Until this model existed `benchd load` printed nearest-rank values
// (LatencyHistogram::valueAtPercentile, wrk's rule, reported as the counter's upper bound); the
// two differ by the rank rule (interpolation between the two neighbouring samples instead of
// taking the upper one) plus at most a counter's width (< 0.1 %, none below 2,048 us). min, max,
// count and mean are exact under both.
//
// Plain values: copy and move freely; nothing refers into the engine's results.

/// What was run, as the caller describes it: the summary's header. Independent of any front end
/// (the CLI fills it from its options, the REST API from its request).
struct LoadRunDescription {
  std::string target;    ///< what was loaded, e.g. the URL "http://127.0.0.1:8080"
  std::string approach;  ///< the {approach} in request paths
  std::string workload;  ///< the workload's name
  std::uint32_t connections = 0;
  /// The test phase as asked for; in request-count mode, how long the count took (whole
  /// seconds, rounded up).
  std::uint32_t test_seconds = 0;
  /// Request-count mode (`benchd load --requests N`): the test phase ended after N requests.
  std::optional<std::uint64_t> request_limit;
  std::uint32_t warmup_seconds = 0;  ///< 0: no warm-up
  /// The row's requestsPerSecond: an arrival rate for open-model workloads, a rate cap for
  /// closed ones that honour it; nullopt when none was given.
  std::optional<std::uint32_t> requests_per_second;
  std::uint32_t delay_call_depth = 0;
  std::uint32_t delay_millis = 0;
  bool stopped_early = false;  ///< the run was interrupted (e.g. Ctrl-C) before its end
};

/// Latency of one set of samples, in milliseconds (all 0 when the set is empty).
struct LoadLatency {
  std::uint64_t count = 0;
  double min = 0.0;  ///< exact
  double p50 = 0.0;  ///< interpolated (see the head comment)
  double p90 = 0.0;
  double p99 = 0.0;
  double p999 = 0.0;
  double max = 0.0;   ///< exact
  double mean = 0.0;  ///< exact (the histogram keeps the sum)
  double p75 = 0.0;   ///< interpolated; for the wrk-style distribution (50/75/90/99 %)

  /// Built from LatencyDigest::of plus p75, p99.9 and the mean.
  static LoadLatency of(const measurement::LatencyHistogram& histogram);
};

/// One test-phase interval (normally a second), the numbers the per-second list shows. Small on
/// purpose: the caller digests each snapshot in the engine's snapshot callback and keeps only
/// this, never the snapshot's histograms.
struct LoadSecondDigest {
  std::uint32_t index = 0;
  double start_seconds = 0.0;  ///< relative to the phase start
  double duration_seconds = 0.0;
  std::uint64_t ok = 0;
  std::uint64_t errors = 0;
  std::uint64_t requested = 0;
  std::uint64_t dropped_arrivals = 0;
  double requests_per_second = 0.0;
  double intended_requests_per_second = 0.0;
  double p50_millis = 0.0;  ///< interpolated, like LoadLatency
  double p99_millis = 0.0;
  std::uint32_t active_vus = 0;
  double generator_cpu_percent = 0.0;

  static LoadSecondDigest of(const measurement::LoadSnapshot& snapshot);
};

/// One error class and its count.
struct ErrorClassCount {
  std::string_view name;  ///< measurement::errorClassName (static storage)
  std::uint64_t count = 0;
};

/// One load phase (the test phase of `benchd load`), every printed number computed.
struct LoadSummary {
  LoadRunDescription run;
  /// True when some sub-scenario has an arrival-rate executor (Workload::isOpenModel):
  /// latency is then timed from the intended send time, and the uncorrected latency and the
  /// arrival counts mean something.
  bool open_model = false;
  double elapsed_seconds = 0.0;  ///< the phase's duration; at least 1e-9 so rates stay finite

  // Requests (measurement::LoadCounters).
  std::uint64_t requests_sent = 0;
  std::uint64_t requests_completed = 0;  ///< ok + errors
  std::uint64_t requests_ok = 0;
  std::uint64_t requests_errors = 0;
  std::uint64_t requests_requested =
      0;  ///< the latency samples' set (measurement::kRequestedFailureThreshold)
  std::uint64_t requests_interrupted = 0;
  std::uint64_t dropped_arrivals = 0;
  std::uint64_t late_arrivals = 0;
  /// Every class in measurement::kAllErrorClasses order, zero counts included.
  std::vector<ErrorClassCount> errors_by_class;

  double requests_per_second = 0.0;  ///< completed / elapsed
  /// Requests that got an HTTP response (2xx, 4xx, 5xx): what throughput counts. A request
  /// refused, timed out or reset got none; it is an error with its own rate, not throughput.
  std::uint64_t responses = 0;
  double responses_per_second = 0.0;  ///< responses / elapsed
  double failures_per_second = 0.0;   ///< (completed - responses) / elapsed
  /// Requests completed, yet not one response: the target did not answer at all (e.g. nothing
  /// listens on the port). Rates and the saturation check then describe the generator only.
  bool nothing_answered = false;
  double intended_requests_per_second = 0.0;  ///< 0 without an intended rate
  LoadLatency latency;                        ///< from the intended send time in the open model
  LoadLatency uncorrected_latency;            ///< open model only: from the actual send
  /// Latencies above the histogram's range (measurement::LatencyHistogram::kHighestTrackableMicros,
  /// about 67 s) that were counted as its maximum; the percentiles above them are too low.
  std::uint64_t latencies_clamped = 0;

  std::uint64_t bytes_sent = 0;
  std::uint64_t bytes_received = 0;
  double bytes_received_per_second = 0.0;  ///< bytes_received / elapsed
  std::uint64_t connects = 0;
  std::uint32_t peak_active_vus = 0;

  // The load generator's self-check.
  std::uint32_t generator_threads = 0;
  std::uint32_t generator_cores = 0;
  double generator_cpu_percent_avg = 0.0;  ///< percent of one core
  double generator_cpu_percent_max = 0.0;
  double generator_cpu_seconds = 0.0;
  double generator_cpu_micros_per_request = 0.0;  ///< 0 when nothing completed
  bool generator_saturated = false;
  std::string saturation_reason;  ///< empty unless saturated
  std::vector<std::string> warnings;

  std::vector<LoadSecondDigest> seconds;  ///< the test phase's intervals, in order
};

/// Builds the summary of `test`, a finished phase of `workload`, from the digests of its
/// snapshots (LoadSecondDigest::of in the snapshot callback, test phase only) and the caller's
/// description. Pure function.
LoadSummary makeLoadSummary(LoadRunDescription run, const scenario::Workload& workload,
                            const measurement::PhaseResult& test,
                            std::vector<LoadSecondDigest> seconds);

}  // namespace benchd::results
