#pragma once
// One second of a (scenario, approach) phase as people see it: plain values in display units
// (seconds, MiB, rates per second), nothing Qt. Made in one place, presentSecond, from the
// stored second: the REST API writes its `Second` JSON from it (daemon/control), benchd-report
// draws it from the store, and benchd-gui decodes the API's JSON straight into it
// (gui/app/src/api_json.hpp), so every front end shows the same numbers and no unit is
// converted twice. Derived values (rates of interval counts, what the rest of the host used)
// come from the model's own functions.

#include <benchd/results/series.hpp>

#include <cstdint>

namespace benchd::results {

struct PresentedSecond {
  double seconds = 0.0;  ///< end of the interval, since the phase began

  // Latency of the interval's requested samples (ms).
  double latency_p50_millis = 0.0;
  double latency_p90_millis = 0.0;
  double latency_p99_millis = 0.0;
  double latency_max_millis = 0.0;

  // Requests per second of the interval.
  double ok_per_second = 0.0;
  double failed_per_second = 0.0;
  std::uint64_t failed = 0;  ///< failed requests in the interval, every error class

  // Host CPU as `sar -u` reports it (percent of all CPUs) and the worker's (percent of one core).
  double host_cpu_user_percent = 0.0;
  double host_cpu_system_percent = 0.0;
  double host_cpu_iowait_percent = 0.0;
  double worker_cpu_percent = 0.0;
  /// What the rest of the host used (results::SystemSample::otherCpuPercent), percent of all.
  double other_cpu_percent = 0.0;

  double worker_heap_mib = 0.0;  ///< allocator bytes in use, from the worker's stats line
  double worker_rss_mib = 0.0;
  double host_ram_used_percent = 0.0;
  double other_ram_percent = 0.0;  ///< SystemSample::otherRamPercent, percent of the host's RAM

  double worker_threads = 0.0;
  double worker_open_fds = 0.0;
  double host_tcp_sockets = 0.0;
  double tcp_active_opens_per_second = 0.0;
  double tcp_passive_opens_per_second = 0.0;

  double loopback_rx_mbps = 0.0;  ///< megabits per second (kB/s / 1024 * 8, as the original)
  double loopback_tx_mbps = 0.0;

  /// A `postgres` row's private cluster, all its processes (results::SystemSample::database);
  /// false in every other second, whose database values are 0 and not drawn.
  bool database_present = false;
  double database_cpu_percent = 0.0;  ///< percent of one core, like the worker's
  double database_mib = 0.0;          ///< proportional set sizes summed

  [[nodiscard]] double hostCpuTotalPercent() const {
    return host_cpu_user_percent + host_cpu_system_percent + host_cpu_iowait_percent;
  }
};

/// The stored second as people see it.
[[nodiscard]] PresentedSecond presentSecond(const SecondRecord& second);

/// Bytes over an interval as megabits per second: bytes / 1024 / 1024 * 8 / seconds, the
/// original's kB/s / 1024 * 8 (0 for an empty interval).
[[nodiscard]] double megabitsPerSecond(std::uint64_t bytes, double interval_seconds);

}  // namespace benchd::results
