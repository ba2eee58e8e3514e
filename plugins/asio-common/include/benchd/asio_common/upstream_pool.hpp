#pragma once

#include <benchd/sdk/idle_list.hpp>

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/system/error_code.hpp>

#include <memory>
#include <string>

namespace boost::asio::ssl {
template <typename Stream>
class stream;
}  // namespace boost::asio::ssl

namespace benchd::asio_common {

struct EventLoop;

/// Result of a nested call: an error, or the HTTP status and body of the answer.
struct UpstreamResult {
  boost::system::error_code error;
  unsigned status = 0;
  std::string body;
};

/// A keep-alive connection to the server's own endpoint, used for nested calls. Counted
/// against the worker-wide pool capacity for its whole life (reserved by UpstreamPool::open).
struct UpstreamConnection {
  explicit UpstreamConnection(EventLoop& owner);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  EventLoop& loop;
  boost::beast::tcp_stream stream;
  /// Under the `tls` profile: TLS over `stream` (TlsStream), to be handshaken after
  /// the connect; null otherwise. Closing `stream` ends it too.
  std::unique_ptr<boost::asio::ssl::stream<boost::beast::tcp_stream&>> tls;
  boost::beast::flat_buffer buffer;
};

/// The idle upstream connections of one event loop. Loop thread only.
///
/// Idle connections are handed out last in, first out and closed once idle for
/// the group's upstreamIdleTimeout() (sdk::kUpstreamIdleTimeout unless a test shortens it; see
/// sdk::IdleList for why this order): on every takeIdle() and, while any is idle, by a sweep
/// every sdk::upstreamIdleSweepInterval() of it, so the rest of a burst
/// is closed even when no nested call comes along any more. A connection whose peer has closed
/// it (or sent bytes nobody asked for) is closed instead of handed out.
class UpstreamPool {
 public:
  explicit UpstreamPool(EventLoop& loop);

  /// An idle connection that is fresh and still open, or null when none is left.
  std::unique_ptr<UpstreamConnection> takeIdle();
  /// A new, unconnected connection; null when the worker-wide capacity is exhausted.
  std::unique_ptr<UpstreamConnection> open();
  /// Returns a connection after a complete keep-alive exchange. Closes it instead while the
  /// server drains.
  void giveBack(std::unique_ptr<UpstreamConnection> connection);
  /// Closes every idle connection and stops the sweep.
  void closeIdle();
  /// Closes the idle connections that have expired (the periodic sweep calls this).
  void closeExpired();
  [[nodiscard]] std::size_t idleCount() const noexcept { return idle_.size(); }

 private:
  void scheduleSweep();

  EventLoop& loop_;
  sdk::IdleList<std::unique_ptr<UpstreamConnection>> idle_;
  std::chrono::milliseconds sweep_interval_;
  boost::asio::steady_timer sweep_;
  bool sweep_pending_ = false;
};

/// Whether a nested call that failed with `error` may be sent once more, on a fresh
/// connection. Only when it went out on a `reused` pooled connection and failed because the
/// peer had closed that connection (end of stream, reset, broken pipe, or under TLS a close
/// without close_notify) before `received_any`
/// byte of an answer: then the server never took the request up, which is the race of a
/// keep-alive connection closed while it sat in the pool. Never after a timeout or any other
/// error: the callee may still be working on the request, and sending it again would
/// multiply the chain behind it.
[[nodiscard]] bool staleKeepAlive(bool reused, const boost::system::error_code& error,
                                  bool received_any) noexcept;

/// Whether an idle pooled connection is still usable: nothing buffered, and the peer has
/// neither closed it nor sent anything (a non-blocking poll, no byte consumed).
[[nodiscard]] bool idleConnectionUsable(UpstreamConnection& connection) noexcept;

/// The GET request of a nested call to `target` on the server itself.
boost::beast::http::request<boost::beast::http::empty_body> upstreamRequest(
    const std::string& target);

}  // namespace benchd::asio_common
