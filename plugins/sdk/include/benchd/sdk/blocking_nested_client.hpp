#pragma once
// What a thread-per-connection plugin asks of a blocking client library for its nested call,
// whichever library it is (the client-curl and client-httplib profiles), so the plugin picks
// one by profile and calls it the same way.

#include <cstdint>
#include <string>

namespace benchd::sdk {

/// The end of one nested call.
struct NestedCallOutcome {
  std::string error;  ///< empty on success: then `status` and `body` are the answer's
  unsigned status = 0;
  std::string body;
  bool client_gone = false;  ///< the caller's client left (or the server stops): nobody to answer
};

/// Thread-safety, for every implementation: get() from any number of pool threads at once;
/// setEndpoint() before the first call; drain() from any thread; destroyed when no call runs.
class BlockingNestedClient {
 public:
  virtual ~BlockingNestedClient() = default;
  BlockingNestedClient() = default;
  BlockingNestedClient(const BlockingNestedClient&) = delete;
  BlockingNestedClient& operator=(const BlockingNestedClient&) = delete;

  /// Calls go to `address`:`port` (the server's own endpoint; numeric).
  virtual void setEndpoint(const std::string& address, std::uint16_t port) = 0;

  /// GET `target` (a target upstreamTarget() made) on a pooled keep-alive connection, blocking
  /// the calling thread, within the contract's timeouts (connect within kConnectTimeout, the
  /// answer within upstreamResponseTimeoutFor()). Ends soon, closing its connection, when the
  /// client on `client_fd` leaves (its sending side closed, reset, hung up).
  virtual NestedCallOutcome get(const std::string& target, int client_fd) = 0;

  /// Closes every idle connection, and from now on every connection a call ends with (the
  /// server drains).
  virtual void drain() = 0;

  /// Connections open now (pooled and in use): the upstream_connections_open counter.
  [[nodiscard]] virtual std::int64_t connectionsOpen() const noexcept = 0;
};

}  // namespace benchd::sdk
