#pragma once
// The nested call's client under the `client-poco` profile: Poco's HTTPClientSession, pooled,
// the calling pool thread blocked in the wait. threads-poco's native client, and threads-asio's
// under the profile.

#include <benchd/sdk/blocking_nested_client.hpp>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <openssl/ssl.h>
#include <string>

namespace benchd::poco_client_support {

/// The profile that chooses Poco's HTTPClientSession as the nested call's client.
inline constexpr const char* kPocoClientProfile = "client-poco";

/// Blocking keep-alive HTTP client for the nested calls, with a pool of
/// Poco::Net::HTTPClientSession shared by all pool threads (one pool per worker, capacity
/// sdk::kUpstreamPoolCapacity like the original's). Thread-safety as sdk::BlockingNestedClient
/// says; get() blocks the calling OS thread.
///
/// Idle sessions are handed out last in, first out and closed once idle for `idle_timeout`
/// (sdk::kUpstreamIdleTimeout unless a test shortens it), on every get() and by the idle
/// pool's sweeper (sdk::SweptIdlePool). A session whose peer has closed its connection (or
/// sent bytes nobody asked for) is closed instead of handed out.
class PocoSessionClient final : public sdk::BlockingNestedClient {
 public:
  /// `response_margin`: what a nested call may take beyond the delay it forwards
  /// (sdk::upstreamResponseMargin()); `idle_timeout`: how long an idle session is kept
  /// (sdk::upstreamIdleTimeout()); `stop_fd`: -1, or a descriptor readable once the server
  /// stops, which ends every wait for an answer at once; `tls_client`: under `tls`, the context
  /// the sessions speak TLS with (it outlives the client), else null.
  PocoSessionClient(std::chrono::milliseconds response_margin,
                    std::chrono::milliseconds idle_timeout, int stop_fd = -1,
                    SSL_CTX* tls_client = nullptr);

  /// Sessions connect to `address`:`port` (the server's own endpoint).
  void setEndpoint(const std::string& address, std::uint16_t port) override;

  /// GET `target` (a target sdk::upstreamTarget made), waiting for the answer up to
  /// sdk::upstreamResponseTimeoutFor(target, response margin). A pooled session whose connection
  /// the server closed before answering (nothing received) is replaced once by a new connection;
  /// no other failure is retried (see staleKeepAlive). While it waits for the answer it watches
  /// the client on `client_fd` and the stop descriptor: when the client leaves, the session is
  /// closed (which ends the nested request's own wait in turn) and the call returns at once.
  sdk::NestedCallOutcome get(const std::string& target, int client_fd) override;

  void drain() override { idle_.drain(); }
  [[nodiscard]] std::int64_t connectionsOpen() const noexcept override { return budget_.inUse(); }

 private:
  class Session;
  struct SessionDeleter {
    PocoSessionClient* pool;
    void operator()(Session* session) const;
  };
  using SessionPtr = std::unique_ptr<Session, SessionDeleter>;

  SessionPtr takeIdle();
  SessionPtr open();
  /// Waits until `session` has something to read (true), or the client on `client_fd` left or
  /// the stop came (false: `client_gone` set). Throws Poco::TimeoutException when neither
  /// happened by `timeout`.
  bool awaitAnswer(Session& session, int client_fd, std::chrono::microseconds timeout,
                   bool& client_gone) const;

  const std::chrono::milliseconds response_margin_;
  const int stop_fd_;
  SSL_CTX* const tls_client_;
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

}  // namespace benchd::poco_client_support
