#include <benchd/loadgen/host_limits.hpp>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>
#include <sys/resource.h>

namespace benchd::loadgen {
namespace {

/// File descriptors a process needs beyond its connections (listeners, pipes, the store, the
/// plugin's own files).
constexpr std::uint64_t kDescriptorMargin = 256;

std::optional<std::string> readProcText(const char* path) {
  std::ifstream file(path);
  std::string text;
  if (!file || !std::getline(file, text)) {
    return std::nullopt;
  }
  return text;
}

std::string joinProblems(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& problem : problems) {
    if (!text.empty()) {
      text += "; ";
    }
    text += problem;
  }
  return text;
}

}  // namespace

std::uint64_t raiseOpenFileLimit() {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return 0;
  }
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) {
      ::getrlimit(RLIMIT_NOFILE, &limit);
    }
  }
  return limit.rlim_cur;
}

HostLimits readHostLimits() {
  HostLimits limits;
  rlimit open_files{};
  if (::getrlimit(RLIMIT_NOFILE, &open_files) == 0) {
    limits.open_files_soft = open_files.rlim_cur;
    limits.open_files_hard = open_files.rlim_max;
  }
  if (const auto range = readProcText("/proc/sys/net/ipv4/ip_local_port_range")) {
    std::istringstream fields(*range);
    std::uint32_t first = 0;
    std::uint32_t last = 0;
    if (fields >> first >> last && last >= first) {
      limits.ephemeral_ports = last - first + 1;
      limits.ephemeral_port_range = std::to_string(first) + " " + std::to_string(last);
    }
  }
  if (const auto somaxconn = readProcText("/proc/sys/net/core/somaxconn")) {
    std::istringstream fields(*somaxconn);
    std::uint32_t value = 0;
    if (fields >> value) {
      limits.somaxconn = value;
    }
  }
  return limits;
}

HostLimitCheck checkHostLimits(std::uint32_t peak_connections, std::uint32_t delay_call_depth,
                               const HostLimits& limits) {
  HostLimitCheck check;
  const std::uint64_t peak = peak_connections;
  // Each process has its own count; the worker inherits this process's limit. The generator
  // holds one socket per connection. The worker holds one per inbound connection and, per
  // nested call level, an outbound socket to itself plus the inbound socket that call arrives on.
  const std::uint64_t generator_descriptors = peak + kDescriptorMargin;
  const std::uint64_t worker_descriptors =
      peak * (1 + 2 * static_cast<std::uint64_t>(delay_call_depth)) + kDescriptorMargin;
  const bool worker_needs_more = worker_descriptors > generator_descriptors;
  const std::uint64_t descriptors = std::max(generator_descriptors, worker_descriptors);
  if (limits.open_files_soft < descriptors) {
    std::ostringstream text;
    text << peak << " connections need about " << descriptors << " file descriptors in the "
         << (worker_needs_more ? "worker (one per inbound connection, two per nested call)"
                               : "load generator (one per connection)")
         << " but RLIMIT_NOFILE (open files) is " << limits.open_files_soft;
    if (limits.open_files_hard < descriptors) {
      text << " (hard limit " << limits.open_files_hard << "): raise it to at least " << descriptors
           << ", e.g. 'nofile 1048576' in /etc/security/limits.conf or LimitNOFILE=1048576 in "
              "the systemd unit";
    } else {
      text << ": raise the soft limit with 'ulimit -n " << descriptors << "'";
    }
    check.problems.push_back(text.str());
  }
  const std::uint64_t ports = peak * (1 + static_cast<std::uint64_t>(delay_call_depth));
  if (limits.ephemeral_ports && *limits.ephemeral_ports < ports) {
    std::ostringstream text;
    text << peak << " connections";
    if (delay_call_depth > 0) {
      text << " with " << delay_call_depth << " nested call" << (delay_call_depth == 1 ? "" : "s")
           << " each";
    }
    text << " need " << ports << " ephemeral ports but net.ipv4.ip_local_port_range is '"
         << limits.ephemeral_port_range << "' (" << *limits.ephemeral_ports
         << " ports): set it with 'sysctl -w net.ipv4.ip_local_port_range=\"1024 65535\"'";
    check.problems.push_back(text.str());
  }
  if (limits.somaxconn && *limits.somaxconn < peak) {
    std::ostringstream text;
    text << "net.core.somaxconn is " << *limits.somaxconn << ", below the " << peak
         << " connections opened at once: the server's listen backlog may overflow and delay "
            "connects; set it with 'sysctl -w net.core.somaxconn=65535'";
    check.warnings.push_back(text.str());
  }
  return check;
}

HostLimitError::HostLimitError(std::vector<std::string> problems)
    : std::runtime_error("host limits too low: " + joinProblems(problems)),
      problems_(std::move(problems)) {}

}  // namespace benchd::loadgen
