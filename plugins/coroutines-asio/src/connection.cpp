#include "connection.hpp"

#include "completion_token.hpp"
#include "http2_connection.hpp"
#include "live_task.hpp"
#include "reply_write.hpp"
#include "request_handler.hpp"

#include <benchd/asio_common/buffered_request.hpp>
#include <benchd/asio_common/client_watch.hpp>
#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/response_bytes.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/h2_session/client_preface.hpp>
#include <benchd/sdk/limits.hpp>

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/read_size.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>

#include <array>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using asio_common::ConnectionRegistration;
using asio_common::InFlightRequest;
using boost::system::error_code;

namespace {

/// After a reply that ends the connection: reads and drops what the peer still sends, until
/// it closes or a short timeout, so unread request bytes cannot turn the close into a reset
/// that destroys the reply before the client reads it.
asio::awaitable<void> discardInput(beast::tcp_stream* stream) {
  error_code ignored;
  stream->socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  stream->expires_after(sdk::kDiscardTimeout);
  std::array<char, 4096> scratch{};
  for (;;) {
    auto [error, bytes] = co_await stream->async_read_some(asio::buffer(scratch), kNoThrow);
    if (error)
      co_return;
  }
}

/// The same under TLS: close_notify (which also tells the client the reply is whole), waiting
/// a short while for the client's own, whatever it still sends before it.
asio::awaitable<void> discardInput(asio_common::TlsStream* stream) {
  beast::get_lowest_layer(*stream).expires_after(sdk::kDiscardTimeout);
  auto [error] = co_await stream->async_shutdown(kNoThrow);
  (void)error;  // the client may close without its close_notify: nothing is lost then
}

/// Reads one request (see benchd/sdk/request_deadline.hpp): waits for its first byte as long
/// as an idle keep-alive connection may wait, then gives the header `header_deadline` and the
/// body kIoTimeout, each in total (the stream's expiry spans every read of an operation).
template <typename Stream>
asio::awaitable<error_code> readRequest(Stream* stream, beast::flat_buffer* buffer,
                                        http::request_parser<http::string_body>* parser,
                                        std::chrono::milliseconds header_deadline) {
  beast::tcp_stream& tcp = beast::get_lowest_layer(*stream);
  if (buffer->size() == 0) {
    tcp.expires_after(sdk::kIoTimeout);
    auto [error, bytes] = co_await stream->async_read_some(
        buffer->prepare(beast::read_size(*buffer, 65536)), kNoThrow);
    buffer->commit(bytes);
    if (error)
      co_return error;
  }
  error_code parse_error;
  const asio_common::BufferedRequest buffered =
      asio_common::parseBufferedRequest(*parser, *buffer, parse_error);
  if (buffered == asio_common::BufferedRequest::kFailed)
    co_return parse_error;
  if (buffered == asio_common::BufferedRequest::kNeedHeader) {
    tcp.expires_after(header_deadline);
    auto [header_error, header_bytes] =
        co_await http::async_read_header(*stream, *buffer, *parser, kNoThrow);
    if (header_error)
      co_return header_error;
  }
  if (parser->is_done())
    co_return error_code{};
  tcp.expires_after(sdk::kIoTimeout);
  auto [body_error, body_bytes] = co_await http::async_read(*stream, *buffer, *parser, kNoThrow);
  co_return body_error;
}

/// Under `h2c`: reads a new connection's first bytes into `buffer` until they tell HTTP/2's
/// client preface from an HTTP/1.1 request (or the connection ends: then HTTP/1.1's reader
/// sees its end), waiting as long as for a first request.
asio::awaitable<bool> readsClientPreface(beast::tcp_stream* stream, beast::flat_buffer* buffer) {
  for (;;) {
    stream->expires_after(sdk::kIoTimeout);
    auto [error, bytes] = co_await stream->async_read_some(
        buffer->prepare(beast::read_size(*buffer, 65536)), kNoThrow);
    buffer->commit(bytes);
    const auto match = h2_session::matchClientPreface(
        {static_cast<const char*>(buffer->data().data()), buffer->size()});
    if (match != h2_session::PrefaceMatch::kPartial || error)
      co_return match == h2_session::PrefaceMatch::kHttp2;
  }
}

asio_common::InboundStream inboundOf(beast::tcp_stream* stream) {
  return {stream, nullptr};
}

asio_common::InboundStream inboundOf(asio_common::TlsStream* stream) {
  return {&beast::get_lowest_layer(*stream), stream};
}

/// The connection's requests, one after the other, on a stream that is ready for them.
template <typename Stream>
asio::awaitable<void> serveRequests(asio_common::EventLoop* loop, const sdk::Host* host,
                                    Stream* stream, beast::flat_buffer* buffer,
                                    ConnectionRegistration* registration) {
  while (!loop->group.draining()) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(sdk::kMaxRequestBodyBytes);
    parser.header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
    registration->setIdle(true);
    const error_code read_error =
        co_await readRequest(stream, buffer, &parser, loop->group.headerDeadline());
    registration->setIdle(false);
    if (asio_common::endsConnection(read_error))
      break;

    InFlightRequest in_flight(*loop);
    sdk::Reply reply;
    bool close_after = true;
    if (read_error) {
      reply = asio_common::readErrorReply(read_error);
    } else {
      const auto& message = parser.get();
      auto handled = co_await handleRequest(loop, host, message.method_string(), message.target(),
                                            &message.body(), inboundOf(stream), buffer);
      if (!handled)
        break;  // the client left while its request waited: nobody to answer
      reply = std::move(*handled);
      close_after = false;
    }
    const bool keep_alive =
        !close_after && parser.get().keep_alive() && loop->group.keepAliveAllowed();
    const std::string response =
        asio_common::responseBytes(reply, keep_alive, "benchd coroutines-asio");
    const error_code write_error = co_await writeReply(stream, &response);
    in_flight.answered();
    if (write_error)
      break;
    if (!keep_alive) {
      co_await discardInput(stream);
      break;
    }
  }
}

}  // namespace

asio::awaitable<void> serveConnection(asio_common::EventLoop* loop, const sdk::Host* host,
                                      asio::ip::tcp::socket socket) {
  const LiveCoroutine live(*loop);
  // Capped: chunk lines and trailer sections are refused beyond it (sdk/limits.hpp).
  beast::flat_buffer buffer(sdk::kMaxUnparsedRequestBytes);
  if (asio_common::TlsContexts* tls = loop->group.tls()) {
    beast::tcp_stream tcp(std::move(socket));
    asio_common::TlsStream stream(tcp, tls->server);
    ConnectionRegistration registration(*loop, tcp);
    // The handshake is the first part of the first request's header: the same deadline.
    tcp.expires_after(loop->group.headerDeadline());
    registration.setIdle(true);
    auto [handshake_error] =
        co_await stream.async_handshake(asio::ssl::stream_base::server, kNoThrow);
    registration.setIdle(false);
    if (!handshake_error && tls->offers_h2 && asio_common::negotiatedHttp2(stream)) {
      co_await serveHttp2(loop, host, &stream, &buffer, &registration);
    } else if (!handshake_error) {
      co_await serveRequests(loop, host, &stream, &buffer, &registration);
    }
    asio_common::closeStream(tcp);
    co_return;
  }
  beast::tcp_stream stream(std::move(socket));
  ConnectionRegistration registration(*loop, stream);
  if (loop->group.priorKnowledgeHttp2()) {
    registration.setIdle(true);
    const bool http2 = co_await readsClientPreface(&stream, &buffer);
    registration.setIdle(false);
    if (http2) {
      co_await serveHttp2(loop, host, &stream, &buffer, &registration);
      asio_common::closeStream(stream);
      co_return;
    }
  }
  co_await serveRequests(loop, host, &stream, &buffer, &registration);
  asio_common::closeStream(stream);
}

}  // namespace benchd::coroutines_asio
