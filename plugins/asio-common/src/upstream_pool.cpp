#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/asio_common/upstream_pool.hpp>

#include <boost/beast/http/field.hpp>
#include <boost/beast/http/verb.hpp>

namespace benchd::asio_common {

namespace http = boost::beast::http;

UpstreamConnection::UpstreamConnection(EventLoop& owner) : loop(owner), stream(owner.io) {
  LoopCounters::add(owner.counters.upstream_connections_open, 1);
}

UpstreamConnection::~UpstreamConnection() {
  LoopCounters::add(loop.counters.upstream_connections_open, -1);
  loop.group.releaseUpstreamConnection();
}

std::unique_ptr<UpstreamConnection> UpstreamPool::takeIdle() {
  if (idle_.empty())
    return nullptr;
  auto connection = std::move(idle_.back());
  idle_.pop_back();
  return connection;
}

std::unique_ptr<UpstreamConnection> UpstreamPool::open() {
  if (!loop_.group.reserveUpstreamConnection())
    return nullptr;
  return std::make_unique<UpstreamConnection>(loop_);
}

void UpstreamPool::giveBack(std::unique_ptr<UpstreamConnection> connection) {
  if (loop_.group.draining())
    return;  // closes it
  connection->stream.expires_never();
  idle_.push_back(std::move(connection));
}

http::request<http::empty_body> upstreamRequest(const std::string& target) {
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.keep_alive(true);
  return request;
}

}  // namespace benchd::asio_common
