#include <benchd/common/units.hpp>
#include <benchd/results/presented_second.hpp>

namespace benchd::results {
namespace {

double perSecond(std::uint64_t count, double interval_seconds) {
  return interval_seconds > 0.0 ? static_cast<double>(count) / interval_seconds : 0.0;
}

}  // namespace

double megabitsPerSecond(std::uint64_t bytes, double interval_seconds) {
  return perSecond(bytes, interval_seconds) / common::kBytesPerMebibyte * 8.0;
}

PresentedSecond presentSecond(const SecondRecord& second) {
  const LoadSecond& load = second.load;
  const SystemSample& system = second.system;
  PresentedSecond shown;
  shown.seconds = common::secondsOfMicros(load.start_micros + load.duration_micros);
  shown.latency_p50_millis = load.latency.p50;
  shown.latency_p90_millis = load.latency.p90;
  shown.latency_p99_millis = load.latency.p99;
  shown.latency_max_millis = load.latency.max;
  shown.ok_per_second = load.okPerSecond();
  shown.failed_per_second = load.failedPerSecond();
  shown.failed = load.counters.errors.total();
  shown.host_cpu_user_percent = system.host.cpu_user_percent;
  shown.host_cpu_system_percent = system.host.cpu_system_percent;
  shown.host_cpu_iowait_percent = system.host.cpu_iowait_percent;
  shown.worker_cpu_percent = system.worker.cpu_percent;
  shown.other_cpu_percent = system.otherCpuPercent();
  shown.other_ram_percent = system.otherRamPercent();
  shown.worker_heap_mib =
      system.worker_stats ? common::mebibytes(system.worker_stats->heap_bytes) : 0.0;
  shown.worker_rss_mib = common::mebibytes(system.worker.rss_bytes);
  shown.host_ram_used_percent = system.host.ram_used_percent;
  shown.worker_threads = static_cast<double>(system.worker.threads);
  shown.worker_open_fds = static_cast<double>(system.worker.open_fds);
  shown.host_tcp_sockets = static_cast<double>(system.host.tcp_sockets_in_use);
  // The host's counters cover the sampler's interval, which is the load interval it pairs with.
  const double interval = system.host.interval_seconds;
  shown.tcp_active_opens_per_second = perSecond(system.host.tcp_active_opens, interval);
  shown.tcp_passive_opens_per_second = perSecond(system.host.tcp_passive_opens, interval);
  shown.loopback_rx_mbps = megabitsPerSecond(system.host.loopback_rx_bytes, interval);
  shown.loopback_tx_mbps = megabitsPerSecond(system.host.loopback_tx_bytes, interval);
  shown.database_present = system.database.present;
  shown.database_cpu_percent = system.database.cpu_percent;
  shown.database_mib = common::mebibytes(system.database.rss_bytes);
  return shown;
}

}  // namespace benchd::results
