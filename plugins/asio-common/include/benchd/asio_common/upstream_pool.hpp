#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/system/error_code.hpp>

#include <memory>
#include <string>
#include <vector>

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
  boost::beast::flat_buffer buffer;
};

/// The idle upstream connections of one event loop. Loop thread only.
class UpstreamPool {
 public:
  explicit UpstreamPool(EventLoop& loop) : loop_(loop) {}

  /// An idle connection, or null when none is left.
  std::unique_ptr<UpstreamConnection> takeIdle();
  /// A new, unconnected connection; null when the worker-wide capacity is exhausted.
  std::unique_ptr<UpstreamConnection> open();
  /// Returns a connection after a complete keep-alive exchange. Closes it instead while the
  /// server drains.
  void giveBack(std::unique_ptr<UpstreamConnection> connection);
  void closeIdle() { idle_.clear(); }

 private:
  EventLoop& loop_;
  std::vector<std::unique_ptr<UpstreamConnection>> idle_;
};

/// The GET request of a nested call to `target` on the server itself.
boost::beast::http::request<boost::beast::http::empty_body> upstreamRequest(
    const std::string& target);

}  // namespace benchd::asio_common
