#pragma once

#include <benchd/results/capacity_result.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace benchd::results {

/// The summary metrics of one (scenario, approach) result, in results.csv column order: the
/// original's 26 where the meaning holds, with C++ counterparts for the JVM-only ones (heap in
/// MiB instead of heap percent, RSS beside it, context switches and CPU per request instead of
/// GC count and time, OS threads instead of platform threads). Definitions:
/// docs/metrics-and-ranking.md#the-metrics; computed by computeSummary().
inline constexpr std::array<std::string_view, 28> kMetricNames = {
    "requests_ok",
    "requests_error",
    "requests_per_second_p50",
    "requests_per_second_p90",
    "requests_per_second_max",
    "latency_millis_min",
    "latency_millis_p50",
    "latency_millis_p90",
    "latency_millis_p99",
    "latency_millis_max",
    "cpu_use_percent_avg",
    "cpu_use_percent_max",
    "ram_use_percent_avg",
    "ram_use_percent_max",
    "heap_mib_avg",
    "heap_mib_max",
    "rss_mib_avg",
    "rss_mib_max",
    "context_switches_per_request",
    "cpu_millis_per_request",
    "os_threads_avg",
    "os_threads_max",
    "sockets_avg",
    "sockets_max",
    "network_kib_per_req_avg",
    "network_kib_per_req_max",
    "network_packets_per_req_avg",
    "network_packets_per_req_max",
};
inline constexpr std::size_t kMetricCount = kMetricNames.size();

/// Index of `name` in kMetricNames, or nullopt.
std::optional<std::size_t> metricIndex(std::string_view name);

/// Numbers stored beside the ranked metrics, not ranked (docs/metrics-and-ranking.md#diagnostics).
struct Diagnostics {
  double generator_cpu_percent_avg = 0.0;  ///< load generator event-loop threads, % of one core
  double generator_cpu_percent_max = 0.0;
  std::uint32_t generator_cores = 0;
  double achieved_requests_per_second = 0.0;  ///< completed requests / test duration
  double intended_requests_per_second = 0.0;  ///< 0 when the row has no intended rate
  std::uint64_t dropped_arrivals = 0;         ///< open model
  std::uint64_t late_arrivals = 0;            ///< open model, arrivals that waited
  std::uint64_t interrupted_requests = 0;     ///< cut off at the phase end
  bool open_model = false;
  /// Open model: latency timed from the actual send (the metrics use the intended send time).
  double uncorrected_latency_millis_p50 = 0.0;
  double uncorrected_latency_millis_p99 = 0.0;
  double uncorrected_latency_millis_max = 0.0;
  bool generator_saturated = false;
  std::string saturation_reason;  ///< empty unless saturated
  /// Errors by measurement::ErrorClass name, e.g. "connection_refused=3 http_5xx=1"; empty if none.
  std::string errors_by_class;
  /// What the rest of the host used during the test (host CPU minus the worker and benchd's own
  /// process, which holds the load generator), in percent of all its CPUs: another job on the
  /// machine, which the host-wide metrics would otherwise charge to the approach.
  double other_cpu_percent_avg = 0.0;
  double other_cpu_percent_max = 0.0;
  /// The same for memory (host RAM used minus the worker's and benchd's resident sets, percent
  /// of the host's RAM). Shown beside the CPU share; other processes always hold some memory,
  /// so it marks no result as busy by itself.
  double other_ram_percent_avg = 0.0;
  double other_ram_percent_max = 0.0;
  /// A `postgres` row's private PostgreSQL server, all its processes, during the test: CPU in
  /// percent of one core and its proportional memory. False (and 0) on other rows and for a
  /// server elsewhere, which benchd cannot see.
  bool database_sampled = false;
  double database_cpu_percent_avg = 0.0;
  double database_cpu_percent_max = 0.0;
  double database_mib_max = 0.0;
  /// How the worker ended when it was stopped after the test, if not cleanly (e.g. "exit code 5":
  /// requests were cut off at stop); empty otherwise. Its numbers stand either way.
  std::string worker_stop;
  /// The memory cap the worker's process tree ran under (`--memory-cap`), in bytes, and the
  /// most it used at once (the cgroup's peak); both 0 when the run had no cap.
  std::uint64_t memory_cap_bytes = 0;
  std::uint64_t memory_peak_bytes = 0;
};

/// Above this average share of the host's CPUs used by other processes, a result was measured
/// on a busy host: results.md, the API and the GUI say so, and its scenario's host-wide cells
/// are not ranked (docs/metrics-and-ranking.md#a-busy-host).
inline constexpr double kBusyHostCpuPercent = 10.0;

/// Whether `diagnostics` show a busy host (kBusyHostCpuPercent).
[[nodiscard]] inline bool busyHost(const Diagnostics& diagnostics) {
  return diagnostics.other_cpu_percent_avg > kBusyHostCpuPercent;
}

/// One row of results.csv plus what is stored beside it.
struct SummaryRow {
  std::string scenario;
  std::string approach;
  /// Which run of the (scenario, approach) this is: its round, from 1 (`benchd run --repeat N`
  /// runs rounds 1 to N; stored as result.repeat_number).
  std::uint32_t round = 1;
  /// Its place in the approach order of its round, from 1; 0 when not known (older stores).
  std::uint32_t round_position = 0;
  std::array<double, kMetricCount> metrics{};  ///< kMetricNames order; NaN: missing
  /// A failed run (worker would not start, died, answered wrongly, ...): every metric is
  /// missing (NaN) except the counts requests_ok (answered before the fault, often 0) and
  /// requests_error (>= 1), so a failure never reads as the best latency or the least CPU
  /// (docs/metrics-and-ranking.md#failed-rows).
  bool failed = false;
  std::string failure_reason;  ///< empty unless failed
  Diagnostics diagnostics;
  /// A capacity row's search (its rate is results.csv's kCapacityMetric column); empty for a
  /// fixed-load row, and for a capacity row that failed before its search ended.
  std::optional<CapacityResult> capacity;

  [[nodiscard]] double metric(std::string_view name) const;  ///< throws for an unknown name
  void setMetric(std::string_view name, double value);       ///< throws for an unknown name
};

/// The source study's words for a server its memory cap ended, which a failed run's reason holds
/// when the kernel's OOM killer ended its worker at the cap (`--memory-cap`, `memory_cap=`).
inline constexpr std::string_view kOutOfMemoryOutcome = "OOM — did not complete";

/// Whether `row` failed because its worker was ended at its memory cap (kOutOfMemoryOutcome).
[[nodiscard]] bool endedOutOfMemory(const SummaryRow& row);

/// Whether a failed run keeps `metric`: the counts of what happened before the fault
/// (requests_ok, requests_error); every other metric of a failed run is missing.
[[nodiscard]] bool keptWhenFailed(std::string_view metric);

/// A failed run's row: every metric missing (NaN) except requests_error = `errors` (at least 1)
/// and requests_ok = `ok` (the requests answered before the fault).
SummaryRow failedRow(std::string scenario, std::string approach, std::string reason,
                     std::uint64_t errors = 1, std::uint64_t ok = 0);
/// `row` as a failed run: every metric missing except those keptWhenFailed (for stores written
/// before failed runs' metrics were missing, which kept zeros).
void forgetFailedMetrics(SummaryRow& row);

}  // namespace benchd::results
