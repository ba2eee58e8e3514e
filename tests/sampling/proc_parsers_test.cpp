#include <benchd/sampling/proc_parsers.hpp>

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace benchd::sampling {
namespace {

/// Runs `parse` expecting a ProcFormatError whose message contains every one of `parts`.
template <typename Parse>
void expectFormatError(Parse&& parse, std::initializer_list<std::string_view> parts) {
  try {
    parse();
    ADD_FAILURE() << "expected ProcFormatError";
  } catch (const ProcFormatError& error) {
    const std::string message = error.what();
    for (const std::string_view part : parts) {
      EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
    }
  }
}

// ---- /proc/stat ----

constexpr std::string_view kProcStat =
    "cpu  20712 3 6012 22614 1072 5 76 82 7 1\n"
    "cpu0 10027 0 2596 12583 53 0 5 35 0 0\n"
    "cpu1 10684 3 3416 10030 1018 5 70 46 7 1\n"
    "intr 1198243 45 0 0 0\n"
    "ctxt 2338745\n"
    "btime 1718000000\n"
    "processes 7090\n"
    "procs_running 2\n"
    "procs_blocked 0\n";

TEST(ParseProcStat, ReadsTheAggregateCpuLine) {
  const CpuTimes times = parseProcStat(kProcStat);
  EXPECT_EQ(times.user, 20712U);
  EXPECT_EQ(times.nice, 3U);
  EXPECT_EQ(times.system, 6012U);
  EXPECT_EQ(times.idle, 22614U);
  EXPECT_EQ(times.iowait, 1072U);
  EXPECT_EQ(times.irq, 5U);
  EXPECT_EQ(times.softirq, 76U);
  EXPECT_EQ(times.steal, 82U);
  EXPECT_EQ(times.guest, 7U);
  EXPECT_EQ(times.guest_nice, 1U);
  // guest time is already part of user/nice, so the total leaves it out.
  EXPECT_EQ(times.total(), 20712U + 3 + 6012 + 22614 + 1072 + 5 + 76 + 82);
  EXPECT_EQ(times.cpus, 2U);
}

TEST(ParseProcStat, CountsThePerCpuLinesOnly) {
  EXPECT_EQ(parseProcStat("cpu  1 2 3 4 5 6 7 8\n").cpus, 0U);
  EXPECT_EQ(parseProcStat("cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\ncpu7 1 2 3 4 5 6 7 8\n"
                          "cpufreq 3\nsoftirq 1 cpu9 2\n")
                .cpus,
            2U);
}

TEST(ParseProcStat, GuestFieldsAreOptional) {
  const CpuTimes times = parseProcStat("cpu  1 2 3 4 5 6 7 8\n");
  EXPECT_EQ(times.steal, 8U);
  EXPECT_EQ(times.guest, 0U);
}

TEST(ParseProcStat, MissingAggregateLineNamesTheFile) {
  expectFormatError([] { (void)parseProcStat("cpu0 1 2 3 4 5 6 7 8\n", "/fixture/stat"); },
                    {"/fixture/stat", "'cpu ' line"});
}

TEST(ParseProcStat, TooFewFieldsNameTheMissingOne) {
  expectFormatError([] { (void)parseProcStat("cpu  1 2 3 4 5 6\n"); },
                    {"/proc/stat", "cpu softirq", "found nothing"});
}

TEST(ParseProcStat, NonNumberIsRejected) {
  expectFormatError([] { (void)parseProcStat("cpu  1 2 x 4 5 6 7 8\n"); }, {"cpu system", "'x'"});
}

// ---- /proc/meminfo ----

constexpr std::string_view kMeminfo =
    "MemTotal:       24683652 kB\n"
    "MemFree:        21049584 kB\n"
    "MemAvailable:   23593256 kB\n"
    "Buffers:           13472 kB\n";

TEST(ParseMeminfo, ReadsTotalAndAvailableInBytes) {
  const MemInfo info = parseMeminfo(kMeminfo);
  EXPECT_EQ(info.total_bytes, 24683652ULL * 1024);
  EXPECT_EQ(info.available_bytes, 23593256ULL * 1024);
}

TEST(ParseMeminfo, MissingMemAvailableIsAnError) {
  expectFormatError([] { (void)parseMeminfo("MemTotal: 100 kB\nMemFree: 50 kB\n"); },
                    {"/proc/meminfo", "MemAvailable"});
}

TEST(ParseMeminfo, WrongUnitIsAnError) {
  expectFormatError([] { (void)parseMeminfo("MemTotal: 100 MB\nMemAvailable: 50 kB\n"); },
                    {"'kB'", "MemTotal", "'MB'"});
}

// ---- /proc/net/sockstat ----

TEST(ParseSockstat, ReadsTcpInUse) {
  EXPECT_EQ(parseSockstatTcpInUse("sockets: used 412\n"
                                  "TCP: inuse 37 orphan 0 tw 12 alloc 40 mem 274\n"
                                  "UDP: inuse 0 mem 0\n"),
            37U);
}

TEST(ParseSockstat, MissingTcpLineIsAnError) {
  expectFormatError([] { (void)parseSockstatTcpInUse("sockets: used 12\nUDP: inuse 0 mem 0\n"); },
                    {"/proc/net/sockstat", "'TCP:' line"});
}

TEST(ParseSockstat, MissingInuseIsAnError) {
  expectFormatError([] { (void)parseSockstatTcpInUse("TCP: orphan 0 tw 0\n"); }, {"'inuse'"});
}

// ---- /proc/net/dev ----

constexpr std::string_view kNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs "
    "drop fifo colls carrier compressed\n"
    "    lo:    3319      30    0    0    0     0          0         0     3320      31    0    "
    "0    0     0       0          0\n"
    "  eth0: 40311476    1079    0    0    0     0          0         0    51749     599    0    "
    "0    0     0       0          0\n"
    "  eth1:123456789012 9 0 0 0 0 0 0 5 6 0 0 0 0 0 0\n";

TEST(ParseNetDev, ReadsOneInterfaceByName) {
  const InterfaceCounters lo = parseNetDev(kNetDev, "lo");
  EXPECT_EQ(lo.rx_bytes, 3319U);
  EXPECT_EQ(lo.rx_packets, 30U);
  EXPECT_EQ(lo.tx_bytes, 3320U);
  EXPECT_EQ(lo.tx_packets, 31U);
  const InterfaceCounters eth0 = parseNetDev(kNetDev, "eth0");
  EXPECT_EQ(eth0.rx_bytes, 40311476U);
  EXPECT_EQ(eth0.tx_packets, 599U);
}

TEST(ParseNetDev, CounterTouchingTheColonIsRead) {
  const InterfaceCounters eth1 = parseNetDev(kNetDev, "eth1");
  EXPECT_EQ(eth1.rx_bytes, 123456789012U);
  EXPECT_EQ(eth1.tx_bytes, 5U);
  EXPECT_EQ(eth1.tx_packets, 6U);
}

TEST(ParseNetDev, UnknownInterfaceIsAnError) {
  expectFormatError([] { (void)parseNetDev(kNetDev, "wlan0"); },
                    {"/proc/net/dev", "interface 'wlan0'"});
}

TEST(ParseNetDev, TruncatedLineNamesTheColumn) {
  expectFormatError([] { (void)parseNetDev("    lo:    3319      30    0    0\n", "lo"); },
                    {"'lo' rx fifo", "found nothing"});
}

// ---- /proc/net/snmp ----

constexpr std::string_view kSnmp =
    "Ip: Forwarding DefaultTTL InReceives\n"
    "Ip: 1 64 1180\n"
    "Tcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets "
    "CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n"
    "Tcp: 1 200 120000 -1 13 2 0 0 0 1080 594 0 0 2 0\n"
    "Udp: InDatagrams NoPorts InErrors OutDatagrams\n"
    "Udp: 10 0 0 10\n";

TEST(ParseNetSnmp, ReadsTcpOpensByColumnName) {
  const TcpOpens opens = parseNetSnmpTcp(kSnmp);
  EXPECT_EQ(opens.active_opens, 13U);
  EXPECT_EQ(opens.passive_opens, 2U);
}

TEST(ParseNetSnmp, MissingValueLineIsAnError) {
  expectFormatError([] { (void)parseNetSnmpTcp("Tcp: ActiveOpens PassiveOpens\nUdp: x\n"); },
                    {"/proc/net/snmp", "value line"});
}

TEST(ParseNetSnmp, MissingColumnIsAnError) {
  expectFormatError([] { (void)parseNetSnmpTcp("Tcp: RtoAlgorithm ActiveOpens\nTcp: 1 5\n"); },
                    {"PassiveOpens"});
}

TEST(ParseNetSnmp, ShortValueLineIsAnError) {
  expectFormatError(
      [] { (void)parseNetSnmpTcp("Tcp: MaxConn ActiveOpens PassiveOpens\nTcp: -1 5\n"); },
      {"fewer"});
}

// ---- /proc/<pid>/stat ----

TEST(ParsePidStat, ReadsTimesStateAndThreads) {
  const ProcessStat stat = parsePidStat(
      "7078 (cat) R 7076 7076 3412 0 -1 4194304 99 0 0 0 250 75 0 0 20 0 7 0 43932 3133440 355 "
      "18446744073709551615 93904728199168 0 0 0 0 17 0 0 0 0 0 0\n");
  EXPECT_EQ(stat.pid, 7078);
  EXPECT_EQ(stat.state, 'R');
  EXPECT_EQ(stat.ppid, 7076);
  EXPECT_EQ(stat.utime_ticks, 250U);
  EXPECT_EQ(stat.stime_ticks, 75U);
  EXPECT_EQ(stat.num_threads, 7U);
}

TEST(ParsePidStat, CommWithSpacesAndParenthesesIsSkipped) {
  // A thread may name itself anything up to 15 bytes, ") S 1 2 3" included.
  const ProcessStat stat = parsePidStat(
      "42 (a) S 1 2 (x) y) S 1 42 42 0 -1 4194560 1500 0 2 0 1234 56 0 0 20 0 3 0 12345\n");
  EXPECT_EQ(stat.pid, 42);
  EXPECT_EQ(stat.state, 'S');
  EXPECT_EQ(stat.ppid, 1);
  EXPECT_EQ(stat.utime_ticks, 1234U);
  EXPECT_EQ(stat.stime_ticks, 56U);
  EXPECT_EQ(stat.cutime_ticks, 0U);
  EXPECT_EQ(stat.num_threads, 3U);
}

TEST(ParsePidStat, TruncatedTextNamesTheField) {
  expectFormatError(
      [] {
        (void)parsePidStat("42 (worker) S 1 42 42 0 -1 4194560 1500 0 2 0 1234\n", "/p/42/stat");
      },
      {"/p/42/stat", "stime (field 15)"});
}

TEST(ParsePidStat, MissingCommIsAnError) {
  expectFormatError([] { (void)parsePidStat("42 worker S 1\n"); }, {"parentheses"});
}

// ---- /proc/<pid>/status ----

constexpr std::string_view kStatus =
    "Name:\tbenchd-worker\n"
    "Umask:\t0022\n"
    "State:\tS (sleeping)\n"
    "Tgid:\t7079\n"
    "VmPeak:\t  3060 kB\n"
    "VmHWM:\t    1700 kB\n"
    "VmRSS:\t    1628 kB\n"
    "RssAnon:\t     116 kB\n"
    "Threads:\t17\n"
    "SigQ:\t0/96364\n"
    "Cpus_allowed_list:\t0-1\n"
    "voluntary_ctxt_switches:\t1500\n"
    "nonvoluntary_ctxt_switches:\t23\n";

TEST(ParsePidStatus, ReadsRssThreadsAndSwitches) {
  const ProcessStatus status = parsePidStatus(kStatus);
  EXPECT_EQ(status.rss_bytes, 1628U * 1024);
  EXPECT_EQ(status.threads, 17U);
  EXPECT_EQ(status.voluntary_context_switches, 1500U);
  EXPECT_EQ(status.involuntary_context_switches, 23U);
}

TEST(ParsePidStatus, NoVmRssMeansNoAddressSpace) {
  // A zombie's or kernel thread's status has no Vm* lines at all.
  const ProcessStatus status = parsePidStatus(
      "Name:\tkworker/0:1\nState:\tI (idle)\nThreads:\t1\nvoluntary_ctxt_switches:\t9\n"
      "nonvoluntary_ctxt_switches:\t0\n");
  EXPECT_EQ(status.rss_bytes, 0U);
  EXPECT_EQ(status.threads, 1U);
  EXPECT_EQ(status.voluntary_context_switches, 9U);
}

TEST(ParsePidStatus, TruncatedFileIsAnError) {
  const std::string_view truncated = kStatus.substr(0, kStatus.find("voluntary_ctxt"));
  expectFormatError([&] { (void)parsePidStatus(truncated, "/p/1/status"); },
                    {"/p/1/status", "'voluntary_ctxt_switches:'"});
}

TEST(ParsePidStatus, BadNumberIsAnError) {
  expectFormatError(
      [] {
        (void)parsePidStatus(
            "Threads:\tmany\nvoluntary_ctxt_switches:\t1\nnonvoluntary_ctxt_switches:\t2\n");
      },
      {"Threads", "'many'"});
}

}  // namespace
}  // namespace benchd::sampling
