#pragma once

#include <benchd/measurement/error_class.hpp>

#include <cstdint>

namespace benchd::measurement {

/// What the load generator counted over an interval or a whole phase. Plain counts, so intervals
/// add up to the phase exactly.
struct LoadCounters {
  /// Requests whose first byte was written (a request re-sent once on a fresh connection, after
  /// the server had closed an idle keep-alive connection, counts once).
  std::uint64_t requests_sent = 0;
  std::uint64_t requests_ok = 0;  ///< completed with a 2xx status
  ErrorCounts errors;             ///< failed requests, including failed connects
  /// Completed and failed requests (ok or error) whose latency went into the result histogram:
  /// 2xx, or failures that took at least kRequestedFailureThreshold (the original's "requested"
  /// samples). Equals the histogram's count.
  std::uint64_t requests_requested = 0;
  std::uint64_t bytes_sent = 0;      ///< bytes written to sockets (headers and bodies)
  std::uint64_t bytes_received = 0;  ///< bytes read from sockets (headers and bodies)
  std::uint64_t connects = 0;        ///< TCP connections established
  /// Open model: arrivals never sent, because no connection of the pool was free (or, when
  /// arrivals may wait, because they waited longer than the request timeout or the phase ended).
  std::uint64_t dropped_arrivals = 0;
  /// Open model with waiting arrivals: arrivals sent later than their intended time because no
  /// connection was free when they were due.
  std::uint64_t late_arrivals = 0;
  /// Requests cut off at the end of the phase's or a ramp-down's graceful stop; neither ok nor
  /// errors, and not in any histogram (k6's interrupted iterations).
  std::uint64_t interrupted_requests = 0;

  /// Completed requests: ok plus errors (dropped arrivals and interrupted requests excluded).
  [[nodiscard]] std::uint64_t requestsCompleted() const noexcept {
    return requests_ok + errors.total();
  }

  LoadCounters& operator+=(const LoadCounters& other) noexcept;
  bool operator==(const LoadCounters&) const = default;
};

}  // namespace benchd::measurement
