#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

/// Parsers for the /proc text files benchd samples. Each is a pure function of the file's text,
/// so tests feed them fixture text. `source` only names the file in error messages (the
/// samplers pass the path they actually read, which differs from /proc under a test root).
///
/// Contract shared by all parsers: a field the caller needs that is missing, not a number, or
/// out of range throws ProcFormatError naming the file and the field; a parser never returns a
/// made-up value. Unknown extra lines and columns are ignored, so newer kernels parse.
/// Thread-safety: pure functions, callable from any thread.
namespace benchd::sampling {

/// A /proc file's text did not have the expected shape. what() reads
/// "<file>: <what was expected>, <what was found>".
class ProcFormatError : public std::runtime_error {
 public:
  ProcFormatError(std::string_view source, std::string_view problem);
};

/// The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ) summed over all CPUs.
/// Cumulative since boot.
struct CpuTimes {
  std::uint64_t user = 0;
  std::uint64_t nice = 0;
  std::uint64_t system = 0;
  std::uint64_t idle = 0;
  std::uint64_t iowait = 0;
  std::uint64_t irq = 0;
  std::uint64_t softirq = 0;
  std::uint64_t steal = 0;
  std::uint64_t guest = 0;       ///< already counted in `user` by the kernel
  std::uint64_t guest_nice = 0;  ///< already counted in `nice` by the kernel
  /// The per-CPU lines ("cpu0", "cpu1", ...): the CPUs online when it was read, whose time the
  /// fields above sum.
  std::uint32_t cpus = 0;

  /// All time of all CPUs: every field except guest and guest_nice, which the kernel already
  /// adds to user and nice (sar's total the same way).
  [[nodiscard]] std::uint64_t total() const noexcept {
    return user + nice + system + idle + iowait + irq + softirq + steal;
  }
};

/// Requires user..steal (8 fields, Linux >= 2.6.11); guest and guest_nice default to 0.
[[nodiscard]] CpuTimes parseProcStat(std::string_view text, std::string_view source = "/proc/stat");

struct MemInfo {
  std::uint64_t total_bytes = 0;      ///< MemTotal
  std::uint64_t available_bytes = 0;  ///< MemAvailable (Linux >= 3.14)
};

[[nodiscard]] MemInfo parseMeminfo(std::string_view text,
                                   std::string_view source = "/proc/meminfo");

/// "TCP: inuse N" of /proc/net/sockstat: TCP sockets in use (sar's tcpsck).
[[nodiscard]] std::uint64_t parseSockstatTcpInUse(std::string_view text,
                                                  std::string_view source = "/proc/net/sockstat");

/// One interface's cumulative counters from /proc/net/dev.
struct InterfaceCounters {
  std::uint64_t rx_bytes = 0;
  std::uint64_t rx_packets = 0;
  std::uint64_t tx_bytes = 0;
  std::uint64_t tx_packets = 0;
};

/// The line of `interface` (e.g. "lo"); throws when the interface has no line.
[[nodiscard]] InterfaceCounters parseNetDev(std::string_view text, std::string_view interface,
                                            std::string_view source = "/proc/net/dev");

/// Cumulative TCP connection openings from /proc/net/snmp (the "Tcp:" header and value lines).
struct TcpOpens {
  std::uint64_t active_opens = 0;   ///< connect()s that reached SYN_SENT
  std::uint64_t passive_opens = 0;  ///< connections accepted from LISTEN
};

[[nodiscard]] TcpOpens parseNetSnmpTcp(std::string_view text,
                                       std::string_view source = "/proc/net/snmp");

/// The fields of /proc/<pid>/stat that sampling uses. The comm field (in parentheses) may hold
/// spaces and ')' itself; the parser takes the last ')' of the text as its end.
struct ProcessStat {
  std::int64_t pid = 0;
  char state = '?';               ///< R, S, D, Z (zombie), X (dead), ...
  std::int64_t ppid = 0;          ///< the parent's pid
  std::uint64_t utime_ticks = 0;  ///< whole process (exited threads included), clock ticks
  std::uint64_t stime_ticks = 0;
  /// Of its children that exited and were waited for (reaped), clock ticks.
  std::uint64_t cutime_ticks = 0;
  std::uint64_t cstime_ticks = 0;
  std::uint64_t num_threads = 0;
};

[[nodiscard]] ProcessStat parsePidStat(std::string_view text,
                                       std::string_view source = "/proc/<pid>/stat");

/// The fields of /proc/<pid>/status (or /proc/<pid>/task/<tid>/status) that sampling uses.
struct ProcessStatus {
  /// VmRSS in bytes; 0 when the file has no VmRSS line, which is how the kernel reports a task
  /// without an address space (kernel threads, zombies), not a format error.
  std::uint64_t rss_bytes = 0;
  std::uint64_t threads = 0;  ///< Threads: of the whole thread group
  /// Of this task (thread) only: the kernel does not sum them over the thread group here.
  std::uint64_t voluntary_context_switches = 0;
  std::uint64_t involuntary_context_switches = 0;
};

/// Requires Threads, voluntary_ctxt_switches and nonvoluntary_ctxt_switches.
[[nodiscard]] ProcessStatus parsePidStatus(std::string_view text,
                                           std::string_view source = "/proc/<pid>/status");

}  // namespace benchd::sampling
