#include "connection.hpp"

#include "live_task.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/beast_reply.hpp>
#include <benchd/asio_common/limits.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <array>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio_common::LoopCounters;
using boost::system::error_code;

namespace {

constexpr auto kNoThrow = asio::as_tuple(asio::use_awaitable);

void closeStream(beast::tcp_stream& stream) {
  error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream.close();
}

/// The connection's entry in its loop's connection set, so a draining or stopping server can
/// close it. Lives on the connection's frame and is counted as an open connection.
class ConnectionRegistration final : public asio_common::DrainableConnection {
 public:
  ConnectionRegistration(asio_common::EventLoop& loop, beast::tcp_stream& stream)
      : loop_(loop), stream_(stream) {
    loop_.connections.insert(this);
    LoopCounters::add(loop_.counters.connections_open, 1);
  }
  ~ConnectionRegistration() {
    loop_.connections.erase(this);
    LoopCounters::add(loop_.counters.connections_open, -1);
  }
  ConnectionRegistration(const ConnectionRegistration&) = delete;
  ConnectionRegistration& operator=(const ConnectionRegistration&) = delete;

  void setIdle(bool idle) { idle_ = idle; }
  void closeIfIdle() override {
    if (idle_) closeStream(stream_);
  }
  void closeNow() override { closeStream(stream_); }

 private:
  asio_common::EventLoop& loop_;
  beast::tcp_stream& stream_;
  bool idle_ = false;
};

/// Counts one request as in flight until it is answered (or the frame dies).
class InFlightRequest {
 public:
  explicit InFlightRequest(asio_common::EventLoop& loop) : loop_(loop) {
    LoopCounters::add(loop_.counters.requests_in_flight, 1);
  }
  ~InFlightRequest() {
    if (!answered_) LoopCounters::add(loop_.counters.requests_in_flight, -1);
  }
  InFlightRequest(const InFlightRequest&) = delete;
  InFlightRequest& operator=(const InFlightRequest&) = delete;

  void answered() {
    answered_ = true;
    LoopCounters::add(loop_.counters.requests_in_flight, -1);
    LoopCounters::add(loop_.counters.requests_served, 1);
  }

 private:
  asio_common::EventLoop& loop_;
  bool answered_ = false;
};

bool nothingToAnswer(const error_code& error) {
  return error == http::error::end_of_stream || error == asio::error::operation_aborted ||
         error == beast::error::timeout || error == asio::error::connection_reset ||
         error == asio::error::eof;
}

/// After a reply that ends the connection: reads and drops what the peer still sends, until
/// it closes or a short timeout, so unread request bytes cannot turn the close into a reset
/// that destroys the reply before the client reads it.
asio::awaitable<void> discardInput(beast::tcp_stream* stream) {
  error_code ignored;
  stream->socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream->expires_after(asio_common::kDiscardTimeout);
  std::array<char, 4096> scratch{};
  for (;;) {
    auto [error, bytes] = co_await stream->async_read_some(asio::buffer(scratch), kNoThrow);
    if (error) co_return;
  }
}

}  // namespace

asio::awaitable<void> serveConnection(asio_common::EventLoop* loop, const sdk::Host* host,
                                      asio::ip::tcp::socket socket) {
  const LiveCoroutine live(*loop);
  beast::tcp_stream stream(std::move(socket));
  beast::flat_buffer buffer;
  ConnectionRegistration registration(*loop, stream);

  while (!loop->group.draining()) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(sdk::kMaxRequestBodyBytes);
    stream.expires_after(asio_common::kIoTimeout);
    registration.setIdle(true);
    auto [read_error, bytes] = co_await http::async_read(stream, buffer, parser, kNoThrow);
    registration.setIdle(false);
    if (nothingToAnswer(read_error)) break;

    InFlightRequest in_flight(*loop);
    sdk::Reply reply;
    bool close_after = true;
    if (read_error == http::error::body_limit) {
      reply = sdk::errorReply(413, "request body exceeds " +
                                       std::to_string(sdk::kMaxRequestBodyBytes) + " bytes");
    } else if (read_error) {
      reply = sdk::errorReply(400, "malformed HTTP request: " + read_error.message());
    } else {
      reply = co_await handleRequest(loop, host, &parser.get());
      close_after = false;
    }
    const bool keep_alive =
        !close_after && parser.get().keep_alive() && loop->group.keepAliveAllowed();
    auto response =
        asio_common::beastResponse(std::move(reply), keep_alive, "benchd coroutines-asio");
    stream.expires_after(asio_common::kIoTimeout);
    auto [write_error, written] = co_await http::async_write(stream, response, kNoThrow);
    in_flight.answered();
    if (write_error) break;
    if (!keep_alive) {
      co_await discardInput(&stream);
      break;
    }
  }
  closeStream(stream);
}

}  // namespace benchd::coroutines_asio
