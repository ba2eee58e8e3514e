#include "connection.hpp"

#include "blocking_stream.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/response_bytes.hpp>
#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>

#include <array>

namespace benchd::threads_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

/// Reads one request (see benchd/sdk/request_deadline.hpp): waits for its first byte as long
/// as an idle keep-alive connection may wait (and no longer than the drain's start), then gives
/// the header `header_deadline` and the body kIoTimeout, each in total.
error_code readRequest(BlockingStream& stream, beast::flat_buffer& buffer,
                       http::request_parser<http::string_body>& parser,
                       std::chrono::milliseconds header_deadline) {
  if (buffer.size() == 0) {
    stream.waitingForRequest(true);
    stream.expiresAfter(sdk::kIoTimeout);
    const error_code idle_end = stream.waitReadable();
    stream.waitingForRequest(false);
    if (idle_end)
      return idle_end;
  }
  error_code error;
  stream.expiresAfter(header_deadline);
  http::read_header(stream, buffer, parser, error);
  if (error)
    return error;
  stream.expiresAfter(sdk::kIoTimeout);
  http::read(stream, buffer, parser, error);
  return error;
}

/// After a reply that ends the connection: reads and drops what the peer still sends, until it
/// closes or kDiscardTimeout, so unread request bytes cannot turn the close into a reset that
/// destroys the reply before the client reads it.
void discardInput(BlockingStream& stream) {
  error_code error;
  stream.socket().shutdown(asio::ip::tcp::socket::shutdown_send, error);
  stream.expiresAfter(sdk::kDiscardTimeout);
  std::array<char, 4096> scratch{};
  while (!error)
    stream.read_some(asio::buffer(scratch), error);
}

}  // namespace

void serveConnection(ServerState& state, asio::ip::tcp::socket socket) {
  const sdk::Counted open(state.connections_open);
  error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  BlockingStream stream(std::move(socket), state.signals);
  // Capped: chunk lines and trailer sections are refused beyond it (sdk/limits.hpp).
  beast::flat_buffer buffer(sdk::kMaxUnparsedRequestBytes);

  while (!state.signals.draining()) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(sdk::kMaxRequestBodyBytes);
    parser.header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
    const error_code read_error = readRequest(stream, buffer, parser, state.header_deadline);
    if (asio_common::endsConnection(read_error))
      break;

    sdk::Counted in_flight(state.requests_in_flight);
    sdk::Reply reply;
    bool close_after = true;
    if (read_error) {
      reply = asio_common::readErrorReply(read_error);
    } else {
      auto handled = handleRequest(state, parser.get(), stream);
      if (!handled)
        break;  // the client left while its request waited, or the stop gave up
      reply = std::move(*handled);
      close_after = false;
    }
    const bool keep_alive = !close_after && parser.get().keep_alive() && !state.no_keep_alive &&
                            !state.signals.draining();
    const std::string response =
        asio_common::responseBytes(reply, keep_alive, "benchd threads-asio");
    stream.expiresAfter(sdk::kIoTimeout);
    error_code write_error;
    asio::write(stream, asio::buffer(response), write_error);
    state.requests_served.fetch_add(1, std::memory_order_relaxed);
    in_flight.release();
    if (write_error)
      break;
    if (!keep_alive) {
      discardInput(stream);
      break;
    }
  }
  stream.close();
}

}  // namespace benchd::threads_asio
