#pragma once

#include <cstdint>

namespace benchd::sampling {

/// What the whole host did over one sampling interval (normally one second), read from /proc:
/// the counterpart of the original's `sar -ur -n TCP,SOCK,DEV --iface=lo` line. Rates are
/// deltas over the interval, not per-second values, so intervals add up exactly; levels
/// (RAM, sockets) are read at the end of the interval.
struct HostSample {
  std::int64_t epoch_millis = 0;  ///< wall clock at the end of the interval
  double interval_seconds = 0.0;  ///< length of the interval the deltas cover
  /// Share of all CPUs' time over the interval, in percent (0..100 whatever the core count),
  /// from /proc/stat, as `sar -u` (the original's source) reports them: user without nice,
  /// system including irq and softirq time, iowait. Nice and steal count only in the total.
  double cpu_user_percent = 0.0;
  double cpu_system_percent = 0.0;
  double cpu_iowait_percent = 0.0;
  /// (MemTotal - MemAvailable) / MemTotal, in percent, from /proc/meminfo.
  double ram_used_percent = 0.0;
  /// MemTotal: what ram_used_percent is a share of (0 in seconds stored before schema 5).
  std::uint64_t ram_total_bytes = 0;
  /// The CPUs the cpu_* shares are over (per-CPU lines of /proc/stat at the end of the
  /// interval; 0 in seconds stored before schema 5).
  std::uint32_t cpus = 0;
  /// TCP sockets in use ("TCP: inuse" of /proc/net/sockstat, sar's tcpsck).
  std::uint64_t tcp_sockets_in_use = 0;
  /// Loopback interface traffic over the interval, from /proc/net/dev.
  std::uint64_t loopback_rx_bytes = 0;
  std::uint64_t loopback_tx_bytes = 0;
  std::uint64_t loopback_rx_packets = 0;
  std::uint64_t loopback_tx_packets = 0;
  /// TCP connections opened over the interval (ActiveOpens / PassiveOpens of /proc/net/snmp).
  std::uint64_t tcp_active_opens = 0;
  std::uint64_t tcp_passive_opens = 0;
};

/// What one process did over one sampling interval, from /proc/<pid>/{stat,status,fd}.
struct ProcessSample {
  /// False when the process could not be read (gone, or not ours); every other field is 0 then.
  bool present = false;
  /// user + system CPU time over the interval, in percent of one core (up to 100 * cores).
  double cpu_percent = 0.0;
  /// user + system CPU time used over the interval, to the microsecond where the sampler reads
  /// a CPU-time clock (ProcessSampler), in 10 ms clock ticks where it reads /proc/<pid>/stat
  /// (ProcessTreeSampler: a tree's exited children count only there)
  std::uint64_t cpu_micros = 0;
  std::uint64_t rss_bytes = 0;  ///< VmRSS at the end of the interval
  std::uint64_t threads = 0;    ///< Threads at the end of the interval
  /// Context switches over the interval: voluntary_ctxt_switches and nonvoluntary_ctxt_switches
  /// summed over the process's live threads (/proc/<pid>/task/*/status; a process's own status
  /// file counts its main thread only).
  std::uint64_t voluntary_context_switches = 0;
  std::uint64_t involuntary_context_switches = 0;
  std::uint64_t open_fds = 0;  ///< entries of /proc/<pid>/fd at the end of the interval
};

}  // namespace benchd::sampling
