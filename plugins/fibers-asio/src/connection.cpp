#include "connection.hpp"

#include "request_handler.hpp"

#include <benchd/asio_common/buffered_request.hpp>
#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/immediate_write.hpp>
#include <benchd/asio_common/response_bytes.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>

#include <array>

namespace benchd::fibers_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;
using fiber_scheduler_asio::use_fiber;

namespace {

/// After a reply that ends the connection: reads and drops what the peer still sends, until
/// it closes or a short timeout, so unread request bytes cannot turn the close into a reset
/// that destroys the reply before the client reads it.
void discardInput(beast::tcp_stream& stream) {
  boost::system::error_code ignored;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream.expires_after(sdk::kDiscardTimeout);
  std::array<char, 4096> scratch{};
  for (;;) {
    auto [error, bytes] = stream.async_read_some(asio::buffer(scratch), use_fiber);
    if (error)
      return;
  }
}

/// Reads one request (see benchd/sdk/request_deadline.hpp): waits for its first byte as long
/// as an idle keep-alive connection may wait, then gives the header `header_deadline` and the
/// body kIoTimeout, each in total (the stream's expiry spans every read of an operation).
boost::system::error_code readRequest(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                      http::request_parser<http::string_body>& parser,
                                      std::chrono::milliseconds header_deadline) {
  if (buffer.size() == 0) {
    stream.expires_after(sdk::kIoTimeout);
    auto [error, bytes] =
        stream.async_read_some(buffer.prepare(beast::read_size(buffer, 65536)), use_fiber);
    buffer.commit(bytes);
    if (error)
      return error;
  }
  boost::system::error_code parse_error;
  const asio_common::BufferedRequest buffered =
      asio_common::parseBufferedRequest(parser, buffer, parse_error);
  if (buffered == asio_common::BufferedRequest::kFailed)
    return parse_error;
  if (buffered == asio_common::BufferedRequest::kNeedHeader) {
    stream.expires_after(header_deadline);
    auto [header_error, header_bytes] = http::async_read_header(stream, buffer, parser, use_fiber);
    if (header_error)
      return header_error;
  }
  if (parser.is_done())
    return {};
  stream.expires_after(sdk::kIoTimeout);
  auto [body_error, body_bytes] = http::async_read(stream, buffer, parser, use_fiber);
  return body_error;
}

}  // namespace

void serveConnection(asio_common::EventLoop* loop, FiberLoop* fiber_loop, const sdk::Host* host,
                     asio::ip::tcp::socket socket) {
  const LiveFiber live(*fiber_loop, *loop);
  beast::tcp_stream stream(std::move(socket));
  // Capped: chunk lines and trailer sections are refused beyond it (sdk/limits.hpp).
  beast::flat_buffer buffer(sdk::kMaxUnparsedRequestBytes);
  ConnectionRegistration registration(*loop, stream);

  while (!loop->group.draining()) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(sdk::kMaxRequestBodyBytes);
    parser.header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
    registration.setIdle(true);
    const boost::system::error_code read_error =
        readRequest(stream, buffer, parser, loop->group.headerDeadline());
    registration.setIdle(false);
    if (asio_common::endsConnection(read_error))
      break;

    InFlightRequest in_flight(*loop);
    sdk::Reply reply;
    bool close_after = true;
    if (read_error) {
      reply = asio_common::readErrorReply(read_error);
    } else {
      auto handled = handleRequest(*loop, *host, parser.get(), stream, buffer);
      if (!handled)
        break;  // the client left while its request waited: nobody to answer
      reply = std::move(*handled);
      close_after = false;
    }
    const bool keep_alive =
        !close_after && parser.get().keep_alive() && loop->group.keepAliveAllowed();
    const std::string response =
        asio_common::responseBytes(reply, keep_alive, "benchd fibers-asio");
    boost::system::error_code write_error;
    const std::size_t written =
        asio_common::writeWithoutWaiting(stream.socket(), asio::buffer(response), write_error);
    if (!write_error && written < response.size()) {
      stream.expires_after(sdk::kIoTimeout);
      auto [error, rest] = asio::async_write(stream, asio::buffer(response) + written, use_fiber);
      write_error = error;
    }
    in_flight.answered();
    if (write_error)
      break;
    if (!keep_alive) {
      discardInput(stream);
      break;
    }
  }
  asio_common::closeStream(stream);
}

}  // namespace benchd::fibers_asio
