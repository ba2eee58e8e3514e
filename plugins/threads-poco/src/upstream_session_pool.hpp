#pragma once

#include "client_watch.hpp"

#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <Poco/Net/HTTPClientSession.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>

namespace benchd::threads_poco {

/// Result of a nested call: an error message, or the HTTP status and body of the answer.
struct UpstreamResult {
  std::string error;  ///< empty on success
  int status = 0;
  std::string body;
};

/// Blocking keep-alive HTTP client for the nested calls, with a pool of
/// Poco::Net::HTTPClientSession shared by all pool threads (one pool per worker, capacity
/// sdk::kUpstreamPoolCapacity like the original's). Thread-safe; get() blocks the calling OS
/// thread.
///
/// Idle sessions are handed out last in, first out and closed once idle for `idle_timeout`
/// (sdk::kUpstreamIdleTimeout unless a test shortens it), on every get() and by the idle
/// pool's sweeper (sdk::SweptIdlePool). A session whose peer has closed its connection (or
/// sent bytes nobody asked for) is closed instead of handed out.
class UpstreamSessionPool {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle session is kept
  /// (sdk::upstreamIdleTimeout()).
  UpstreamSessionPool(std::chrono::milliseconds response_margin,
                      std::chrono::milliseconds idle_timeout);
  UpstreamSessionPool(const UpstreamSessionPool&) = delete;
  UpstreamSessionPool& operator=(const UpstreamSessionPool&) = delete;

  /// Sessions connect to `host`:`port` (the server's own endpoint).
  void setEndpoint(std::string host, std::uint16_t port);

  /// GET `target` (a target sdk::upstreamTarget made), waiting for the answer up to
  /// sdk::upstreamResponseTimeoutFor(target, response margin). A pooled session whose connection
  /// the server closed before answering (nothing received) is replaced once by a new connection; no
  /// other failure is retried (see staleKeepAlive). While it waits for the answer it watches
  /// the caller's client (`watch`): when that client leaves, the session is closed (which ends
  /// the nested request's own wait in turn) and the call returns at once with an error.
  UpstreamResult get(const std::string& target, ClientWatch& watch);

  /// Closes every idle session, and from now on every session a call ends with (the server
  /// drains). Thread-safe.
  void drain() { idle_.drain(); }
  [[nodiscard]] std::int64_t sessionsOpen() const noexcept { return budget_.inUse(); }

 private:
  class Session;
  struct SessionDeleter {
    UpstreamSessionPool* pool;
    void operator()(Session* session) const;
  };
  using SessionPtr = std::unique_ptr<Session, SessionDeleter>;

  SessionPtr takeIdle();
  SessionPtr open();

  const std::chrono::milliseconds response_margin_;
  std::string host_;
  std::uint16_t port_ = 0;
  sdk::ConnectionBudget budget_;
  // Last: its sessions give their places back to budget_ when it closes them.
  sdk::SweptIdlePool<SessionPtr> idle_;
};

/// Whether a nested call that failed with `error` may be sent once more, on a new connection.
/// Only when it went out on a `reused` pooled session and failed because the peer had closed
/// that connection (no answer at all, reset, aborted) before `received_any` byte of an answer:
/// then the server never took the request up. Never after a timeout or any other error: the
/// callee may still be working on the request, and sending it again would multiply the chain
/// behind it.
[[nodiscard]] bool staleKeepAlive(bool reused, const std::exception& error,
                                  bool received_any) noexcept;

}  // namespace benchd::threads_poco
