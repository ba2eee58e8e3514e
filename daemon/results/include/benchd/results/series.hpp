#pragma once

#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/measurement/load_counters.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/sampling/samples.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace benchd::results {

/// Latency percentiles of one set of samples, in milliseconds (0 when the set is empty).
struct LatencyDigest {
  std::uint64_t count = 0;
  double min = 0.0;
  double p50 = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
  double max = 0.0;

  /// Interpolated percentiles of the histogram (see interpolatedPercentile).
  static LatencyDigest of(const measurement::LatencyHistogram& histogram);
};

/// One load-generator interval (normally a second) as stored: the snapshot's counts and rates,
/// its latency digest and the non-empty histogram buckets (so seconds can be re-aggregated
/// later without keeping 136 KiB histograms per second).
struct LoadSecond {
  measurement::PhaseKind phase = measurement::PhaseKind::kTest;
  std::uint32_t index = 0;
  std::int64_t start_micros = 0;     ///< relative to the phase start
  std::int64_t duration_micros = 0;  ///< the last interval of a phase may be shorter or longer
  std::int64_t end_epoch_millis = 0;
  measurement::LoadCounters counters;
  double achieved_requests_per_second = 0.0;
  double intended_requests_per_second = 0.0;
  std::uint32_t active_vus = 0;
  double generator_cpu_percent = 0.0;
  LatencyDigest latency;  ///< requested samples (see measurement::LoadSnapshot::latency)
  LatencyDigest uncorrected_latency;  ///< open model only
  std::vector<measurement::HistogramBucket> latency_buckets;

  static LoadSecond of(const measurement::LoadSnapshot& snapshot);

  /// 2xx responses per second of this interval (its own length, not a nominal second).
  [[nodiscard]] double okPerSecond() const;
  /// Failed requests (every error class) per second of this interval.
  [[nodiscard]] double failedPerSecond() const;
};

/// The worker's own report: its latest stats line (allocator bytes in use, plugin counters).
struct WorkerStats {
  std::int64_t epoch_millis = 0;
  std::int64_t heap_bytes = 0;
  std::vector<std::pair<std::string, std::int64_t>> counters;
};

/// What the samplers saw at the end of one load-generator interval: the host, the worker
/// process, the load generator's own process, and the worker's latest stats line. Taken in the
/// snapshot callback, so each sample covers the same interval as the LoadSecond it pairs with.
struct SystemSample {
  std::int64_t epoch_millis = 0;
  sampling::HostSample host;
  sampling::ProcessSample worker;
  sampling::ProcessSample generator;
  /// A `postgres` row's private PostgreSQL server, all its processes
  /// (sampling::ProcessTreeSampler); not present on other rows and for a server elsewhere.
  sampling::ProcessSample database;
  std::optional<WorkerStats> worker_stats;  ///< none until the worker's first stats line

  /// What the rest of the host used of its CPUs in this interval, percent of all CPUs: the
  /// host's user + system + iowait share minus the worker's, benchd's own process's (which
  /// holds the load generator) and the row's database's, never below 0 (samples a tick apart
  /// can cross). 0 when the host's CPU count is unknown (host.cpus 0: seconds stored before
  /// schema 5).
  [[nodiscard]] double otherCpuPercent() const;
  /// The same for memory: host RAM used minus the worker's and benchd's resident sets and the
  /// database's proportional set, percent of MemTotal; 0 when MemTotal is unknown. Shared pages
  /// count in both resident sets, so this errs low.
  [[nodiscard]] double otherRamPercent() const;
};

/// One second of a phase.
struct SecondRecord {
  LoadSecond load;
  SystemSample system;
};

/// numpy's default (linear) percentile over the recorded values, from a histogram: the value at
/// rank p/100 * (n - 1), interpolated between the two neighbouring ranks. A rank's value is its
/// counter's midpoint clamped to [min, max] (exact below 2,048 us, within 0.05 % above), so
/// p0 is the exact min and p100 the exact max. In microseconds; 0 when empty.
double interpolatedPercentile(const measurement::LatencyHistogram& histogram, double percentile);

/// numpy's default (linear) percentile of plain values; 0 when empty.
double interpolatedPercentile(std::vector<double> values, double percentile);

}  // namespace benchd::results
