#pragma once

#include <benchd/asio_common/curl_upstream.hpp>
#include <benchd/asio_common/database_pool.hpp>
#include <benchd/asio_common/loop_counters.hpp>
#include <benchd/asio_common/upstream_pool.hpp>
#include <benchd/plugin.h>
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <vector>

namespace benchd::asio_common {

class EventLoopGroup;
struct TlsContexts;

/// The profiles the event-loop plugins implement themselves: the transport's, the database
/// of `postgres`, the nested call's clients (Beast, their native one, also without a client
/// profile, and libcurl's multi interface on the loop: CurlUpstream), `tls` (HTTP/1.1 over
/// TLS: TlsContexts) and HTTP/2 (h2_session::ServerSession): `h2` (over TLS, chosen by ALPN)
/// and `h2c` (prior knowledge, beside HTTP/1.1 on the same port).
inline constexpr const char* kEventLoopHttp2Profiles[] = {
    "no-keep-alive", "postgres", "client-beast", kCurlClientProfile, "tls", "h2", "h2c"};

/// Whether a failed accept ran out of descriptors or kernel memory (EMFILE, ENFILE, ENOBUFS,
/// ENOMEM): then accepting again at once fails again at once, and the listener waits
/// sdk::kAcceptBackoff instead.
[[nodiscard]] bool isResourceExhaustion(const boost::system::error_code& accept_error) noexcept;

/// Opens `acceptor` (closed, on any io_context) and binds and listens on the settings' address
/// and port with SO_REUSEADDR (not SO_REUSEPORT: a second server on the port must fail).
/// Throws sdk::PluginError: BENCHD_ERR_INVALID_ARGUMENT for a non-numeric address,
/// BENCHD_ERR_ADDRESS_IN_USE when the port is taken, BENCHD_ERR_IO otherwise.
void openListener(boost::asio::ip::tcp::acceptor& acceptor, const sdk::ServerSettings& settings,
                  int backlog);

/// Where a server listening on `bound` calls itself for nested calls: `bound`, or loopback
/// (of the same family) when bound to the unspecified address.
[[nodiscard]] boost::asio::ip::tcp::endpoint selfEndpointOf(
    const boost::asio::ip::tcp::endpoint& bound);

/// An inbound connection as the server's lifecycle sees it. Implemented by each plugin's
/// connection type, which registers itself in its loop's `connections` set for its whole
/// life. Both calls come on the connection's loop thread.
class DrainableConnection {
 public:
  /// Closes the connection if it is between requests (draining).
  virtual void closeIfIdle() = 0;
  /// Closes the connection whatever it is doing (stopping); pending operations complete with
  /// an error.
  virtual void closeNow() = 0;

 protected:
  DrainableConnection() = default;
  ~DrainableConnection() = default;
  DrainableConnection(const DrainableConnection&) = default;
  DrainableConnection& operator=(const DrainableConnection&) = default;
};

/// One io_context run by one thread. Every connection lives on exactly one loop and is only
/// touched from its thread, so per-loop state needs no locks.
struct EventLoop {
  EventLoop(EventLoopGroup& owner, std::size_t loop_index);

  EventLoopGroup& group;
  std::size_t index;
  LoopCounters counters;
  /// Every live inbound connection of this loop. Loop thread only. Declared before the
  /// io_context so that it outlives the handlers the io_context destroys.
  std::unordered_set<DrainableConnection*> connections;
  boost::asio::io_context io{1};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
  UpstreamPool upstream;
  /// The nested call's client under the `client-curl` profile (kCurlClientProfile); null
  /// otherwise, and then `upstream` (Beast) serves the nested calls.
  std::unique_ptr<CurlUpstream> curl;
  std::thread thread;
};

/// `threads` event loops behind one listening socket; accepted connections are handed to the
/// loops round-robin. Owns the server lifecycle shared by the Asio-based plugins: bind with
/// clear errors, start, graceful drain and stop, counters.
///
/// Thread-safety: listen(), start(), stop() and reportCounters() are called from the host
/// thread; draining(), keepAliveAllowed(), selfEndpoint() and the upstream capacity calls are
/// safe from any loop thread.
class EventLoopGroup {
 public:
  /// Called on the loop thread that owns the new connection's socket.
  using AcceptHandler = std::function<void(EventLoop&, boost::asio::ip::tcp::socket)>;
  /// Runs one loop on its thread until `stop_loop` has been called for it; default:
  /// io.run(), stopped by io.stop().
  using LoopRunner = std::function<void(EventLoop&)>;
  /// Asks a loop to finish once every connection is closed; called from the host thread
  /// after all connections were told to close. Default: io.stop().
  using LoopStopper = std::function<void(EventLoop&)>;

  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad header_deadline_ms,
  /// upstream_margin_ms, upstream_idle_ms or db_deadline_ms. `host` is the host's table: when
  /// it has a database (the `postgres` row), the group owns the loops' DatabasePool.
  EventLoopGroup(sdk::ServerSettings settings, const benchd_host_api* host);
  ~EventLoopGroup();
  EventLoopGroup(const EventLoopGroup&) = delete;
  EventLoopGroup& operator=(const EventLoopGroup&) = delete;

  /// Binds and listens. Throws sdk::PluginError: BENCHD_ERR_ADDRESS_IN_USE when the port is
  /// taken, BENCHD_ERR_INVALID_ARGUMENT for a non-numeric address, BENCHD_ERR_IO otherwise.
  void listen();
  /// Starts accepting and the loop threads.
  void start(AcceptHandler on_accept, LoopRunner run_loop = {}, LoopStopper stop_loop = {});
  /// Drains: closes idle connections, lets requests in flight finish (their nested calls may
  /// still connect), then closes the listener and every remaining connection, stops the loops
  /// and joins them. Returns false when requests were still in flight at the deadline.
  /// Idempotent.
  bool stop(std::chrono::milliseconds timeout);

  /// Calls `sink` for each common counter (accept_errors among them: accepts that failed, e.g.
  /// for want of descriptors); `live_tasks_name` names LoopCounters::live_tasks (e.g.
  /// "live_coroutines"), or it is left out when null.
  void reportCounters(benchd_counter_sink sink, void* sink_context,
                      const char* live_tasks_name) const;

  [[nodiscard]] std::uint16_t boundPort() const noexcept { return bound_port_; }
  [[nodiscard]] const sdk::ServerSettings& settings() const noexcept { return settings_; }
  [[nodiscard]] const boost::asio::ip::tcp::endpoint& selfEndpoint() const noexcept {
    return self_endpoint_;
  }
  /// How long a request's header may take from its first byte (sdk::headerDeadline()).
  [[nodiscard]] std::chrono::milliseconds headerDeadline() const noexcept {
    return header_deadline_;
  }
  /// What a nested call may take beyond the delay it forwards (sdk::upstreamResponseMargin()).
  [[nodiscard]] std::chrono::milliseconds upstreamResponseMargin() const noexcept {
    return upstream_response_margin_;
  }
  /// How long an idle pooled upstream connection is kept (sdk::upstreamIdleTimeout()).
  [[nodiscard]] std::chrono::milliseconds upstreamIdleTimeout() const noexcept {
    return upstream_idle_timeout_;
  }
  [[nodiscard]] bool draining() const noexcept { return draining_.load(std::memory_order_relaxed); }
  /// False under the no-keep-alive profile and while draining.
  [[nodiscard]] bool keepAliveAllowed() const noexcept { return !no_keep_alive_ && !draining(); }

  /// The worker-wide capacity of upstream connections, shared by every loop's client.
  [[nodiscard]] sdk::ConnectionBudget& upstreamBudget() noexcept { return upstream_budget_; }

  [[nodiscard]] std::vector<std::unique_ptr<EventLoop>>& loops() noexcept { return loops_; }

  /// The database sessions every loop shares under the `postgres` profile; null otherwise.
  [[nodiscard]] DatabasePool* database() noexcept { return database_.get(); }

  /// The TLS contexts under the `tls` and `h2` profiles; null otherwise. Read-only once built.
  [[nodiscard]] TlsContexts* tls() const noexcept { return tls_.get(); }

  /// Under `h2c`: a plain connection whose first bytes are HTTP/2's client preface speaks
  /// HTTP/2 (h2_session::matchClientPreface), any other HTTP/1.1.
  [[nodiscard]] bool priorKnowledgeHttp2() const noexcept { return h2c_; }

 private:
  void acceptNext();
  /// After a resource-exhaustion accept error: accepts again after kAcceptBackoff. Loop 0.
  void acceptAfterBackoff();
  [[nodiscard]] std::int64_t sum(std::atomic<std::int64_t> LoopCounters::*counter) const;
  /// Posts to every loop: close idle pooled upstream connections and, for each inbound
  /// connection, closeIfIdle() or (when `all`) closeNow().
  void closeConnections(bool all);

  sdk::ServerSettings settings_;
  bool no_keep_alive_;
  bool h2c_;
  std::chrono::milliseconds header_deadline_;
  std::chrono::milliseconds upstream_response_margin_;
  std::chrono::milliseconds upstream_idle_timeout_;
  std::atomic<bool> draining_{false};
  sdk::ConnectionBudget upstream_budget_;
  std::vector<std::unique_ptr<EventLoop>> loops_;
  AcceptHandler on_accept_;
  LoopStopper stop_loop_;
  std::size_t next_loop_ = 0;                                  // acceptor's thread only
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor_;   // lives on loops_[0]
  std::unique_ptr<boost::asio::steady_timer> accept_backoff_;  // loops_[0]
  /// Failed accepts (counter "accept_errors"): EMFILE and the like; written on loop 0.
  std::atomic<std::int64_t> accept_errors_{0};
  boost::asio::ip::tcp::endpoint self_endpoint_;
  std::unique_ptr<DatabasePool> database_;
  std::unique_ptr<TlsContexts> tls_;
  std::uint16_t bound_port_ = 0;
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace benchd::asio_common
