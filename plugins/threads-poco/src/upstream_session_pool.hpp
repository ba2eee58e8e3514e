#pragma once

#include "client_watch.hpp"

#include <benchd/sdk/idle_list.hpp>

#include <Poco/Net/HTTPClientSession.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

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
/// (sdk::kUpstreamIdleTimeout unless a test shortens it; see sdk::IdleList for why this order),
/// on every get() and by a sweeper thread every sdk::upstreamIdleSweepInterval() of it while
/// the pool exists, so the rest of
/// a burst is closed even when no nested call comes along any more. A session whose peer has
/// closed its connection (or sent bytes nobody asked for) is closed instead of handed out.
class UpstreamSessionPool {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle session is kept
  /// (sdk::upstreamIdleTimeout()).
  UpstreamSessionPool(std::chrono::milliseconds response_margin,
                      std::chrono::milliseconds idle_timeout);
  ~UpstreamSessionPool();
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

  /// Drops every idle session (closing its connection). Thread-safe.
  void closeIdle();
  /// Drops the idle sessions that have expired (the sweeper calls this). Thread-safe.
  void closeExpired();
  [[nodiscard]] std::int64_t sessionsOpen() const noexcept {
    return sessions_open_.load(std::memory_order_relaxed);
  }
  [[nodiscard]] std::size_t idleCount();

 private:
  class Session;
  struct SessionDeleter {
    UpstreamSessionPool* pool;
    void operator()(Session* session) const;
  };
  using SessionPtr = std::unique_ptr<Session, SessionDeleter>;

  SessionPtr takeIdle();
  SessionPtr open();
  void giveBack(SessionPtr session);
  void sweep(const std::stop_token& stop);

  const std::chrono::milliseconds response_margin_;
  const std::chrono::milliseconds sweep_interval_;
  std::string host_;
  std::uint16_t port_ = 0;
  std::atomic<std::int64_t> sessions_open_{0};
  std::mutex mutex_;
  sdk::IdleList<SessionPtr> idle_;  // guarded by mutex_
  std::condition_variable_any sweep_wakeup_;
  std::jthread sweeper_;  // last: stopped and joined before the members it uses go
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
