#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::loadgen {

/// The host limits that bound how many connections a run can open over loopback.
struct HostLimits {
  std::uint64_t open_files_soft = 0;  ///< RLIMIT_NOFILE of this process
  std::uint64_t open_files_hard = 0;
  /// Size of net.ipv4.ip_local_port_range (last - first + 1) and its text; nullopt when unknown.
  std::optional<std::uint32_t> ephemeral_ports;
  std::string ephemeral_port_range;
  std::optional<std::uint32_t> somaxconn;  ///< net.core.somaxconn; nullopt when unknown
};

/// Raises this process's RLIMIT_NOFILE soft limit to its hard limit (children inherit it).
/// Returns the new soft limit. Safe to call more than once; thread-safe.
std::uint64_t raiseOpenFileLimit();

/// Reads the current limits from getrlimit and /proc/sys.
HostLimits readHostLimits();

/// What a phase with `peak_connections` connections needs from the host, compared with `limits`:
///  * file descriptors, per process (the worker inherits this process's limit): the load
///    generator needs peak + 256, the worker peak * (1 + 2 * delay_call_depth) + 256 (an
///    inbound socket per connection, and per nested level an outbound socket to itself and
///    the inbound one it arrives on); the larger against RLIMIT_NOFILE -> problem;
///  * ephemeral ports: peak * (1 + delay_call_depth) (the server's nested calls connect over
///    loopback too) against net.ipv4.ip_local_port_range -> problem;
///  * the listen backlog: net.core.somaxconn below peak -> warning only (connect bursts may
///    be dropped and retried by the kernel).
/// Each message names the limit, the value found, the value needed and how to set it.
struct HostLimitCheck {
  std::vector<std::string> problems;  ///< the run cannot work as asked
  std::vector<std::string> warnings;  ///< the run works but may be distorted
};
HostLimitCheck checkHostLimits(std::uint32_t peak_connections, std::uint32_t delay_call_depth,
                               const HostLimits& limits);

/// Thrown before a phase starts when checkHostLimits found problems; what() joins them.
class HostLimitError : public std::runtime_error {
 public:
  explicit HostLimitError(std::vector<std::string> problems);
  [[nodiscard]] const std::vector<std::string>& problems() const noexcept { return problems_; }

 private:
  std::vector<std::string> problems_;
};

}  // namespace benchd::loadgen
