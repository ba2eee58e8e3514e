#include <benchd/charts/chart_second.hpp>

#include <algorithm>

namespace benchd::charts {
namespace {

constexpr double kMebibyte = 1024.0 * 1024.0;
constexpr double kMicrosPerSecond = 1e6;

double perSecond(std::uint64_t count, double interval_seconds) {
  return interval_seconds > 0.0 ? static_cast<double>(count) / interval_seconds : 0.0;
}

}  // namespace

double megabitsPerSecond(std::uint64_t bytes, double interval_seconds) {
  return perSecond(bytes, interval_seconds) / kMebibyte * 8.0;
}

ChartSecond chartSecondOf(const results::SecondRecord& second) {
  const results::LoadSecond& load = second.load;
  const results::SystemSample& system = second.system;
  ChartSecond chart;
  chart.seconds = static_cast<double>(load.start_micros + load.duration_micros) / kMicrosPerSecond;
  chart.latency_p50_millis = load.latency.p50;
  chart.latency_p90_millis = load.latency.p90;
  chart.latency_p99_millis = load.latency.p99;
  chart.latency_max_millis = load.latency.max;
  chart.ok_per_second = load.okPerSecond();
  chart.failed_per_second = load.failedPerSecond();
  chart.failed = load.counters.errors.total();
  chart.host_cpu_user_percent = system.host.cpu_user_percent;
  chart.host_cpu_system_percent = system.host.cpu_system_percent;
  chart.host_cpu_iowait_percent = system.host.cpu_iowait_percent;
  chart.worker_cpu_percent = system.worker.cpu_percent;
  chart.other_cpu_percent = system.otherCpuPercent();
  chart.other_ram_percent = system.otherRamPercent();
  chart.worker_heap_mib =
      system.worker_stats ? static_cast<double>(system.worker_stats->heap_bytes) / kMebibyte : 0.0;
  chart.worker_rss_mib = static_cast<double>(system.worker.rss_bytes) / kMebibyte;
  chart.host_ram_used_percent = system.host.ram_used_percent;
  chart.worker_threads = static_cast<double>(system.worker.threads);
  chart.worker_open_fds = static_cast<double>(system.worker.open_fds);
  chart.host_tcp_sockets = static_cast<double>(system.host.tcp_sockets_in_use);
  // The host's counters cover the sampler's interval, which is the load interval it pairs with.
  const double interval = system.host.interval_seconds;
  chart.tcp_active_opens_per_second = perSecond(system.host.tcp_active_opens, interval);
  chart.tcp_passive_opens_per_second = perSecond(system.host.tcp_passive_opens, interval);
  chart.loopback_rx_mbps = megabitsPerSecond(system.host.loopback_rx_bytes, interval);
  chart.loopback_tx_mbps = megabitsPerSecond(system.host.loopback_tx_bytes, interval);
  chart.database_present = system.database.present;
  chart.database_cpu_percent = system.database.cpu_percent;
  chart.database_mib = static_cast<double>(system.database.rss_bytes) / kMebibyte;
  return chart;
}

}  // namespace benchd::charts
