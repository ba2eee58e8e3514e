// Parsers of /proc text (see proc_parsers.hpp). Everything works on string_views of the
// caller's text: no allocation unless a parse fails, because the process sampler parses one
// status file per thread every second.
#include <benchd/sampling/proc_parsers.hpp>

#include <charconv>
#include <cstddef>
#include <optional>
#include <string>
#include <system_error>

namespace benchd::sampling {

namespace {

constexpr std::string_view kWhitespace = " \t\r\n";

std::string makeMessage(std::string_view source, std::string_view problem) {
  std::string message(source);
  message += ": ";
  message += problem;
  return message;
}

/// Removes and returns the first line of `rest` (without its '\n').
std::string_view nextLine(std::string_view& rest) {
  const std::size_t end = rest.find('\n');
  std::string_view line = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  return line;
}

/// Removes and returns the next whitespace-separated token of `rest`; "" at the end.
std::string_view nextToken(std::string_view& rest) {
  const std::size_t begin = rest.find_first_not_of(kWhitespace);
  if (begin == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(begin);
  const std::size_t end = rest.find_first_of(kWhitespace);
  std::string_view token = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end);
  return token;
}

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(kWhitespace);
  if (begin == std::string_view::npos) {
    return {};
  }
  const std::size_t end = text.find_last_not_of(kWhitespace);
  return text.substr(begin, end - begin + 1);
}

std::optional<std::uint64_t> toU64(std::string_view token) {
  std::uint64_t value = 0;
  const char* const end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (token.empty() || ec != std::errc{} || ptr != end) {
    return std::nullopt;
  }
  return value;
}

/// `token` as a number, or a ProcFormatError naming `field`.
std::uint64_t requireU64(std::string_view token, std::string_view source, std::string_view field) {
  if (const std::optional<std::uint64_t> value = toU64(token)) {
    return *value;
  }
  std::string problem = "expected a non-negative integer for ";
  problem += field;
  problem += token.empty() ? std::string(", found nothing") : ", got '" + std::string(token) + "'";
  throw ProcFormatError(source, problem);
}

[[noreturn]] void throwMissing(std::string_view source, std::string_view what) {
  std::string problem = "expected ";
  problem += what;
  problem += ", found none";
  throw ProcFormatError(source, problem);
}

/// The line of `text` that starts with `prefix`, without the prefix.
std::optional<std::string_view> lineAfterPrefix(std::string_view text, std::string_view prefix) {
  while (!text.empty()) {
    const std::string_view line = nextLine(text);
    if (line.substr(0, prefix.size()) == prefix) {
      return line.substr(prefix.size());
    }
  }
  return std::nullopt;
}

/// "<value> kB" of a meminfo or status line, in bytes.
std::uint64_t kilobytesToBytes(std::string_view rest, std::string_view source,
                               std::string_view field) {
  const std::uint64_t kilobytes = requireU64(nextToken(rest), source, field);
  const std::string_view unit = nextToken(rest);
  if (unit != "kB") {
    std::string problem = "expected the unit 'kB' after ";
    problem += field;
    problem += ", got '" + std::string(unit) + "'";
    throw ProcFormatError(source, problem);
  }
  return kilobytes * 1024;
}

}  // namespace

ProcFormatError::ProcFormatError(std::string_view source, std::string_view problem)
    : std::runtime_error(makeMessage(source, problem)) {}

CpuTimes parseProcStat(std::string_view text, std::string_view source) {
  // The aggregate line is "cpu" followed by a space; per-CPU lines are "cpu0", "cpu1", ...
  std::optional<std::string_view> rest = lineAfterPrefix(text, "cpu ");
  if (!rest) {
    throwMissing(source, "an aggregate 'cpu ' line");
  }
  CpuTimes times;
  struct Field {
    std::uint64_t CpuTimes::*member;
    std::string_view name;
  };
  static constexpr Field kFields[] = {
      {&CpuTimes::user, "cpu user"},       {&CpuTimes::nice, "cpu nice"},
      {&CpuTimes::system, "cpu system"},   {&CpuTimes::idle, "cpu idle"},
      {&CpuTimes::iowait, "cpu iowait"},   {&CpuTimes::irq, "cpu irq"},
      {&CpuTimes::softirq, "cpu softirq"}, {&CpuTimes::steal, "cpu steal"},
      {&CpuTimes::guest, "cpu guest"},     {&CpuTimes::guest_nice, "cpu guest_nice"},
  };
  constexpr std::size_t kRequiredFields = 8;  // user..steal; guest* came later (2.6.24, 2.6.33)
  std::size_t index = 0;
  for (const Field& field : kFields) {
    const std::string_view token = nextToken(*rest);
    if (token.empty() && index >= kRequiredFields) {
      break;
    }
    times.*field.member = requireU64(token, source, field.name);
    ++index;
  }
  for (std::size_t at = 0; (at = text.find("cpu", at)) != std::string_view::npos; at += 3) {
    const bool line_start = at == 0 || text[at - 1] == '\n';
    if (line_start && at + 3 < text.size() && text[at + 3] >= '0' && text[at + 3] <= '9') {
      ++times.cpus;
    }
  }
  return times;
}

MemInfo parseMeminfo(std::string_view text, std::string_view source) {
  const std::optional<std::string_view> total = lineAfterPrefix(text, "MemTotal:");
  if (!total) {
    throwMissing(source, "a 'MemTotal:' line");
  }
  const std::optional<std::string_view> available = lineAfterPrefix(text, "MemAvailable:");
  if (!available) {
    throwMissing(source, "a 'MemAvailable:' line (Linux >= 3.14)");
  }
  MemInfo info;
  info.total_bytes = kilobytesToBytes(*total, source, "MemTotal");
  info.available_bytes = kilobytesToBytes(*available, source, "MemAvailable");
  if (info.total_bytes == 0) {
    throw ProcFormatError(source, "expected a positive MemTotal, got 0");
  }
  return info;
}

std::uint64_t parseSockstatTcpInUse(std::string_view text, std::string_view source) {
  std::optional<std::string_view> rest = lineAfterPrefix(text, "TCP:");
  if (!rest) {
    throwMissing(source, "a 'TCP:' line");
  }
  // "TCP: inuse 1 orphan 0 tw 0 alloc 1 mem 274": name/value pairs.
  for (std::string_view name = nextToken(*rest); !name.empty(); name = nextToken(*rest)) {
    const std::string_view value = nextToken(*rest);
    if (name == "inuse") {
      return requireU64(value, source, "TCP inuse");
    }
  }
  throwMissing(source, "'inuse' on the 'TCP:' line");
}

InterfaceCounters parseNetDev(std::string_view text, std::string_view interface,
                              std::string_view source) {
  // Two header lines, then "  name: rx_bytes rx_packets errs drop fifo frame compressed
  // multicast tx_bytes tx_packets ...". Large counters can touch the colon, so split on it.
  while (!text.empty()) {
    const std::string_view line = nextLine(text);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || trim(line.substr(0, colon)) != interface) {
      continue;
    }
    std::string_view rest = line.substr(colon + 1);
    std::uint64_t columns[10] = {};
    static constexpr std::string_view kNames[] = {
        "rx bytes", "rx packets",    "rx errs",      "rx drop",  "rx fifo",
        "rx frame", "rx compressed", "rx multicast", "tx bytes", "tx packets"};
    for (std::size_t i = 0; i < std::size(columns); ++i) {
      const std::string_view token = nextToken(rest);
      if (const std::optional<std::uint64_t> value = toU64(token)) {
        columns[i] = *value;
      } else {
        requireU64(token, source, "'" + std::string(interface) + "' " + std::string(kNames[i]));
      }
    }
    return InterfaceCounters{columns[0], columns[1], columns[8], columns[9]};
  }
  std::string what = "a line for interface '";
  what += interface;
  what += "'";
  throwMissing(source, what);
}

TcpOpens parseNetSnmpTcp(std::string_view text, std::string_view source) {
  // "Tcp: RtoAlgorithm RtoMin ... ActiveOpens PassiveOpens ..." then "Tcp: 1 200 ...".
  std::optional<std::string_view> header;
  std::optional<std::string_view> values;
  while (!text.empty()) {
    const std::string_view line = nextLine(text);
    if (line.substr(0, 4) == "Tcp:") {
      (header ? values : header) = line.substr(4);
      if (values) {
        break;
      }
    }
  }
  if (!header) {
    throwMissing(source, "a 'Tcp:' header line");
  }
  if (!values) {
    throwMissing(source, "a 'Tcp:' value line after the header");
  }
  std::optional<std::uint64_t> active;
  std::optional<std::uint64_t> passive;
  std::string_view names = *header;
  std::string_view numbers = *values;
  for (std::string_view name = nextToken(names); !name.empty(); name = nextToken(names)) {
    const std::string_view number = nextToken(numbers);
    if (number.empty()) {
      throw ProcFormatError(source, "expected as many 'Tcp:' values as header names, got fewer");
    }
    if (name == "ActiveOpens") {
      active = requireU64(number, source, "Tcp ActiveOpens");
    } else if (name == "PassiveOpens") {
      passive = requireU64(number, source, "Tcp PassiveOpens");
    }
  }
  if (!active) {
    throwMissing(source, "an ActiveOpens column in the 'Tcp:' header");
  }
  if (!passive) {
    throwMissing(source, "a PassiveOpens column in the 'Tcp:' header");
  }
  return TcpOpens{*active, *passive};
}

ProcessStat parsePidStat(std::string_view text, std::string_view source) {
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
  // stime cutime cstime priority nice num_threads ...". comm may contain spaces, ')' and even
  // newlines, but nothing after it can contain ')', so its end is the last ')'.
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    throwMissing(source, "a command name in parentheses");
  }
  ProcessStat stat;
  stat.pid = static_cast<std::int64_t>(requireU64(trim(text.substr(0, open)), source, "pid"));
  std::string_view rest = text.substr(close + 1);
  const std::string_view state = nextToken(rest);
  if (state.size() != 1) {
    throw ProcFormatError(source, "expected a one-letter state after the command name, got '" +
                                      std::string(state) + "'");
  }
  stat.state = state.front();
  // Field numbers as in proc(5): state is field 3.
  for (int field = 4; field <= 20; ++field) {
    const std::string_view token = nextToken(rest);
    switch (field) {
      case 4:
        stat.ppid = static_cast<std::int64_t>(requireU64(token, source, "ppid (field 4)"));
        break;
      case 14:
        stat.utime_ticks = requireU64(token, source, "utime (field 14)");
        break;
      case 15:
        stat.stime_ticks = requireU64(token, source, "stime (field 15)");
        break;
      case 16:
        // cutime and cstime are signed in proc(5) (long) but never negative in practice.
        stat.cutime_ticks = toU64(token).value_or(0);
        break;
      case 17:
        stat.cstime_ticks = toU64(token).value_or(0);
        break;
      case 20:
        stat.num_threads = requireU64(token, source, "num_threads (field 20)");
        break;
      default:
        if (token.empty()) {
          throw ProcFormatError(source,
                                "expected at least 20 fields, got " + std::to_string(field - 1));
        }
        break;
    }
  }
  return stat;
}

ProcessStatus parsePidStatus(std::string_view text, std::string_view source) {
  ProcessStatus status;
  bool have_threads = false;
  bool have_voluntary = false;
  bool have_involuntary = false;
  while (!text.empty()) {
    const std::string_view line = nextLine(text);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      continue;
    }
    const std::string_view key = line.substr(0, colon);
    const std::string_view value = line.substr(colon + 1);
    if (key == "VmRSS") {
      status.rss_bytes = kilobytesToBytes(value, source, "VmRSS");
    } else if (key == "Threads") {
      status.threads = requireU64(trim(value), source, "Threads");
      have_threads = true;
    } else if (key == "voluntary_ctxt_switches") {
      status.voluntary_context_switches = requireU64(trim(value), source, key);
      have_voluntary = true;
    } else if (key == "nonvoluntary_ctxt_switches") {
      status.involuntary_context_switches = requireU64(trim(value), source, key);
      have_involuntary = true;
    }
  }
  if (!have_threads) {
    throwMissing(source, "a 'Threads:' line");
  }
  if (!have_voluntary) {
    throwMissing(source, "a 'voluntary_ctxt_switches:' line");
  }
  if (!have_involuntary) {
    throwMissing(source, "a 'nonvoluntary_ctxt_switches:' line");
  }
  return status;
}

}  // namespace benchd::sampling
