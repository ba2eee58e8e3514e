#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/asio_common/upstream_pool.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <boost/asio/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

#include <poll.h>

#include <vector>

namespace benchd::asio_common {

namespace asio = boost::asio;
namespace http = boost::beast::http;

UpstreamConnection::UpstreamConnection(EventLoop& owner) : loop(owner), stream(owner.io) {
  LoopCounters::add(owner.counters.upstream_connections_open, 1);
}

UpstreamConnection::~UpstreamConnection() {
  LoopCounters::add(loop.counters.upstream_connections_open, -1);
  loop.group.upstreamBudget().release();
}

UpstreamPool::UpstreamPool(EventLoop& loop)
    : loop_(loop),
      idle_(loop.group.upstreamIdleTimeout()),
      sweep_interval_(sdk::upstreamIdleSweepInterval(loop.group.upstreamIdleTimeout())),
      sweep_(loop.io) {}

std::unique_ptr<UpstreamConnection> UpstreamPool::takeIdle() {
  std::vector<std::unique_ptr<UpstreamConnection>> dropped;  // closed on return
  auto connection = idle_.take(
      std::chrono::steady_clock::now(),
      [](std::unique_ptr<UpstreamConnection>& idle) { return idleConnectionUsable(*idle); },
      dropped);
  return connection ? std::move(*connection) : nullptr;
}

std::unique_ptr<UpstreamConnection> UpstreamPool::open() {
  if (!loop_.group.upstreamBudget().tryReserve())
    return nullptr;
  auto connection = std::make_unique<UpstreamConnection>(loop_);
  if (TlsContexts* tls = loop_.group.tls())
    connection->tls = std::make_unique<TlsStream>(connection->stream, tls->client);
  return connection;
}

void UpstreamPool::giveBack(std::unique_ptr<UpstreamConnection> connection) {
  if (loop_.group.draining())
    return;  // closes it
  connection->stream.expires_never();
  idle_.put(std::move(connection), std::chrono::steady_clock::now());
  scheduleSweep();
}

void UpstreamPool::closeIdle() {
  std::vector<std::unique_ptr<UpstreamConnection>> dropped;
  idle_.clear(dropped);
  sweep_.cancel();
}

void UpstreamPool::closeExpired() {
  std::vector<std::unique_ptr<UpstreamConnection>> dropped;
  idle_.expire(std::chrono::steady_clock::now(), dropped);
}

void UpstreamPool::scheduleSweep() {
  if (sweep_pending_)
    return;
  sweep_pending_ = true;
  sweep_.expires_after(sweep_interval_);
  // The pool outlives every handler it schedules: it is destroyed with its loop, after the
  // loop's thread has stopped running handlers; a cancelled wait touches nothing.
  sweep_.async_wait([this](const boost::system::error_code& error) {
    if (error == asio::error::operation_aborted) {
      sweep_pending_ = false;
      return;
    }
    sweep_pending_ = false;
    closeExpired();
    if (!idle_.empty())
      scheduleSweep();
  });
}

bool staleKeepAlive(bool reused, const boost::system::error_code& error,
                    bool received_any) noexcept {
  if (!reused || received_any)
    return false;
  return error == http::error::end_of_stream || error == asio::error::eof ||
         error == asio::error::connection_reset || error == asio::error::broken_pipe ||
         error == asio::error::connection_aborted || error == asio::ssl::error::stream_truncated;
}

bool idleConnectionUsable(UpstreamConnection& connection) noexcept {
  if (connection.buffer.size() != 0)
    return false;  // bytes after the last answer: the connection is out of step
  auto& socket = connection.stream.socket();
  if (!socket.is_open())
    return false;
  pollfd poll_fd{};
  poll_fd.fd = socket.native_handle();
  poll_fd.events = POLLIN | POLLRDHUP;
  // Readable, hung up or in error: an idle connection expects nothing from its peer, so any
  // of these means it was closed (or is out of step) and a request sent on it would fail.
  return ::poll(&poll_fd, 1, 0) == 0;
}

http::request<http::empty_body> upstreamRequest(const std::string& target) {
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(true);
  return request;
}

}  // namespace benchd::asio_common
