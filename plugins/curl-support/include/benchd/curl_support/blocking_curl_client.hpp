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
#include <benchd/sdk/blocking_nested_client.hpp>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace benchd::curl_support {

/// Thread-safety as sdk::BlockingNestedClient says.
class BlockingCurlClient final : public sdk::BlockingNestedClient {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle connection is kept
  /// (sdk::upstreamIdleTimeout()); `stop_fd`: -1, or a descriptor readable once the server
  /// stops, which ends every call at once; `tls`: the calls go over TLS (setTlsOptions). Throws
  /// std::runtime_error when libcurl cannot start.
  BlockingCurlClient(std::chrono::milliseconds response_margin,
                     std::chrono::milliseconds idle_timeout, int stop_fd = -1, bool tls = false);
  /// Closes every idle connection; no call may be running.
  ~BlockingCurlClient() override;

  void setEndpoint(const std::string& address, std::uint16_t port) override;
  /// Ends at once when the client leaves or the stop descriptor becomes readable.
  sdk::NestedCallOutcome get(const std::string& target, int client_fd) override;
  void drain() override { idle_.drain(); }
  [[nodiscard]] std::int64_t connectionsOpen() const noexcept override { return budget_.inUse(); }

 private:
  class Handle;
  struct HandleDeleter {
    void operator()(Handle* handle) const;
  };
  using HandlePtr = std::unique_ptr<Handle, HandleDeleter>;

  HandlePtr takeIdle();

  const std::chrono::milliseconds response_margin_;
  const std::chrono::milliseconds idle_timeout_;
  const int stop_fd_;
  const bool tls_;
  curl_slist* headers_;
  std::string base_url_;
  sdk::ConnectionBudget budget_;
  // Last: its handles give their sockets' places back to budget_ when it closes them.
  sdk::SweptIdlePool<HandlePtr> idle_;
};

}  // namespace benchd::curl_support
