#pragma once
// The nested call's client under the `client-curl` profile for the thread-per-connection
// plugins (threads-asio, threads-poco): the calling pool thread runs the transfer and sleeps in
// poll() while it waits, as a blocking client does.
//
// Why not curl_easy_perform with a shared connection cache: libcurl's shared connection cache
// (CURLSH with CURL_LOCK_DATA_CONNECT) is not thread-safe (its known bug 11.11), and
// curl_easy_perform's waits cannot watch the caller's client, so a departure would be noticed
// only at the progress callback, about once a second. Instead the pool holds libcurl handles
// that each keep one connection: an easy handle in a multi handle of its own whose cache keeps
// at most one connection. A call takes the most recently used idle one (or makes one), drives
// it with curl_multi_socket_action, and polls libcurl's socket together with the client's
// connection (POLLRDHUP: pipelined bytes do not wake it, a departure does) and an optional stop
// descriptor, so a departing client or a stop ends the call at once.
//
// The contract's rules hold as for the other clients (CONTRACT.md section 6): connect within
// sdk::kConnectTimeout, the whole transfer within sdk::upstreamResponseTimeoutFor (libcurl
// counts it from the transfer's start, the connect included); only libcurl's own retry of a
// reused connection that died before any answer, never after a timeout; at most
// sdk::kUpstreamPoolCapacity connections at once (the sockets are opened through a callback
// that reserves a place); idle handles closed after `idle_timeout` by a sweeper thread every
// sdk::upstreamIdleSweepInterval(), so the rest of a burst is closed when no call comes along.

#include <benchd/curl_support/curl_support.hpp>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace benchd::curl_support {

/// Thread-safe: get() from any number of pool threads at once; setEndpoint() before the first
/// call; drain() from any thread.
class BlockingCurlClient {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle connection is kept
  /// (sdk::upstreamIdleTimeout()). Throws std::runtime_error when libcurl cannot start.
  BlockingCurlClient(std::chrono::milliseconds response_margin,
                     std::chrono::milliseconds idle_timeout);
  /// Closes every idle connection; no call may be running.
  ~BlockingCurlClient();
  BlockingCurlClient(const BlockingCurlClient&) = delete;
  BlockingCurlClient& operator=(const BlockingCurlClient&) = delete;

  /// Calls go to `address`:`port` (the server's own endpoint; numeric).
  void setEndpoint(const std::string& address, std::uint16_t port);

  struct Outcome {
    std::string error;  ///< empty on success: then `status` and `body` are the answer's
    unsigned status = 0;
    std::string body;
    bool client_gone = false;  ///< the client on `client_fd` left, or `stop_fd` fired
  };

  /// GET `target` (a target sdk::upstreamTarget made) on a pooled connection, blocking the
  /// calling thread. Ends at once, closing its connection, when the client on `client_fd`
  /// leaves (its sending side closed, reset, hung up) or `stop_fd` (if not -1) becomes
  /// readable.
  Outcome get(const std::string& target, int client_fd, int stop_fd = -1);

  /// Closes every idle connection, and from now on every connection a call ends with (the
  /// server drains).
  void drain() { idle_.drain(); }

  /// Connections open now (pooled and in use), for counters and tests.
  [[nodiscard]] std::int64_t connectionsOpen() const noexcept { return budget_.inUse(); }

 private:
  class Handle;
  struct HandleDeleter {
    void operator()(Handle* handle) const;
  };
  using HandlePtr = std::unique_ptr<Handle, HandleDeleter>;

  HandlePtr takeIdle();

  const std::chrono::milliseconds response_margin_;
  const std::chrono::milliseconds idle_timeout_;
  curl_slist* headers_;
  std::string base_url_;
  sdk::ConnectionBudget budget_;
  // Last: its handles give their sockets' places back to budget_ when it closes them.
  sdk::SweptIdlePool<HandlePtr> idle_;
};

}  // namespace benchd::curl_support
