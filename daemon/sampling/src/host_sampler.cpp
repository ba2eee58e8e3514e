#include "counter_delta.hpp"
#include "proc_files.hpp"

#include <benchd/sampling/host_sampler.hpp>
#include <benchd/sampling/proc_parsers.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace benchd::sampling {

namespace {

using detail::counterDelta;

/// Everything HostSampler reads at one instant.
struct HostCounters {
  std::chrono::steady_clock::time_point at;
  CpuTimes cpu;
  MemInfo memory;
  std::uint64_t tcp_sockets_in_use = 0;
  InterfaceCounters interface;
  TcpOpens tcp;
};

double percentOf(std::uint64_t part, std::uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

}  // namespace

struct HostSampler::Impl {
  explicit Impl(HostSamplerOptions options)
      : interface(std::move(options.interface)),
        clock(std::move(options.clock)),
        stat_path((options.proc_root / "stat").string()),
        meminfo_path((options.proc_root / "meminfo").string()),
        sockstat_path((options.proc_root / "net" / "sockstat").string()),
        dev_path((options.proc_root / "net" / "dev").string()),
        snmp_path((options.proc_root / "net" / "snmp").string()) {}

  /// Reads every file; throws before changing anything when one fails.
  HostCounters read() {
    HostCounters counters;
    counters.at = clock->steadyNow();
    detail::readFileOrThrow(stat_path, buffer);
    counters.cpu = parseProcStat(buffer, stat_path);
    detail::readFileOrThrow(meminfo_path, buffer);
    counters.memory = parseMeminfo(buffer, meminfo_path);
    detail::readFileOrThrow(sockstat_path, buffer);
    counters.tcp_sockets_in_use = parseSockstatTcpInUse(buffer, sockstat_path);
    detail::readFileOrThrow(dev_path, buffer);
    counters.interface = parseNetDev(buffer, interface, dev_path);
    detail::readFileOrThrow(snmp_path, buffer);
    counters.tcp = parseNetSnmpTcp(buffer, snmp_path);
    return counters;
  }

  std::string interface;
  std::shared_ptr<const Clock> clock;
  std::string stat_path;
  std::string meminfo_path;
  std::string sockstat_path;
  std::string dev_path;
  std::string snmp_path;
  std::string buffer;  // reused by every read
  HostCounters previous;
};

HostSampler::HostSampler(HostSamplerOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->previous = impl_->read();
}

HostSampler::~HostSampler() = default;
HostSampler::HostSampler(HostSampler&&) noexcept = default;
HostSampler& HostSampler::operator=(HostSampler&&) noexcept = default;

HostSample HostSampler::sample() {
  const HostCounters now = impl_->read();
  const HostCounters& before = impl_->previous;

  HostSample sample;
  sample.epoch_millis = impl_->clock->epochMillis();
  sample.interval_seconds = std::chrono::duration<double>(now.at - before.at).count();
  if (sample.interval_seconds < 0.0) {
    sample.interval_seconds = 0.0;  // only a broken injected clock goes backwards
  }

  // Per-field deltas, then the total as their sum: a field that went backwards then neither
  // counts itself nor inflates the total.
  // As `sar -u` reports them: %user without nice, %system with the interrupt time (on loopback
  // the network stack's softirq work is much of what a benchmark costs the kernel).
  const std::uint64_t user = counterDelta(before.cpu.user, now.cpu.user);
  const std::uint64_t system = counterDelta(before.cpu.system, now.cpu.system) +
                               counterDelta(before.cpu.irq, now.cpu.irq) +
                               counterDelta(before.cpu.softirq, now.cpu.softirq);
  const std::uint64_t iowait = counterDelta(before.cpu.iowait, now.cpu.iowait);
  const std::uint64_t total = user + system + iowait + counterDelta(before.cpu.nice, now.cpu.nice) +
                              counterDelta(before.cpu.idle, now.cpu.idle) +
                              counterDelta(before.cpu.steal, now.cpu.steal);
  sample.cpu_user_percent = percentOf(user, total);
  sample.cpu_system_percent = percentOf(system, total);
  sample.cpu_iowait_percent = percentOf(iowait, total);
  sample.cpus = now.cpu.cpus;

  const MemInfo& memory = now.memory;
  sample.ram_used_percent =
      percentOf(memory.total_bytes - std::min(memory.available_bytes, memory.total_bytes),
                memory.total_bytes);
  sample.ram_total_bytes = memory.total_bytes;
  sample.tcp_sockets_in_use = now.tcp_sockets_in_use;

  sample.loopback_rx_bytes = counterDelta(before.interface.rx_bytes, now.interface.rx_bytes);
  sample.loopback_tx_bytes = counterDelta(before.interface.tx_bytes, now.interface.tx_bytes);
  sample.loopback_rx_packets = counterDelta(before.interface.rx_packets, now.interface.rx_packets);
  sample.loopback_tx_packets = counterDelta(before.interface.tx_packets, now.interface.tx_packets);
  sample.tcp_active_opens = counterDelta(before.tcp.active_opens, now.tcp.active_opens);
  sample.tcp_passive_opens = counterDelta(before.tcp.passive_opens, now.tcp.passive_opens);

  impl_->previous = now;
  return sample;
}

}  // namespace benchd::sampling
