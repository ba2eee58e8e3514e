#include "connection.hpp"

#include "blocking_stream.hpp"
#include "request_handler.hpp"
#include "tls_over_blocking.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/response_bytes.hpp>
#include <benchd/h2_blocking/http2_pump.hpp>
#include <benchd/h2_session/client_preface.hpp>
#include <benchd/sdk/counted.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/tls_support/tls_context.hpp>

#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>

#include <array>
#include <string_view>
#include <type_traits>

namespace benchd::threads_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

/// Whether the connection is served over TLS (Stream is TlsOverBlocking, over the raw
/// BlockingStream) or in clear (Stream is the BlockingStream itself).
template <typename Stream>
constexpr bool kOverTls = std::is_same_v<Stream, TlsOverBlocking>;

/// How much a TLS connection's first read of a request may take (the rest goes by Beast).
constexpr std::size_t kFirstTlsRead = 4096;

/// Reads one request (see benchd/sdk/request_deadline.hpp): waits for its first byte as long
/// as an idle keep-alive connection may wait (and no longer than the drain's start), then gives
/// the header `header_deadline` and the body kIoTimeout, each in total. `raw` holds the waits
/// (deadlines, the drain) of `stream`, which is `raw` itself or TLS over it.
template <typename Stream>
error_code readRequest(BlockingStream& raw, Stream& stream, beast::flat_buffer& buffer,
                       http::request_parser<http::string_body>& parser,
                       std::chrono::milliseconds header_deadline) {
  if (buffer.size() == 0) {
    raw.waitingForRequest(true);
    raw.expiresAfter(sdk::kIoTimeout);
    error_code idle_end;
    if constexpr (kOverTls<Stream>) {
      // Decrypted bytes may already wait inside the TLS layer, where poll() cannot see them:
      // reading the first bytes is the wait.
      const std::size_t bytes = stream.read_some(buffer.prepare(kFirstTlsRead), idle_end);
      buffer.commit(bytes);
    } else {
      idle_end = raw.waitReadable();
    }
    raw.waitingForRequest(false);
    if (idle_end)
      return idle_end;
  }
  error_code error;
  raw.expiresAfter(header_deadline);
  http::read_header(stream, buffer, parser, error);
  if (error)
    return error;
  raw.expiresAfter(sdk::kIoTimeout);
  http::read(stream, buffer, parser, error);
  return error;
}

/// Whether a read error means the client is gone or the wait was ended, so that no reply is
/// due; a TLS client may also just close its socket without TLS's close_notify.
bool endsConnection(const error_code& read_error) {
  return asio_common::endsConnection(read_error) ||
         read_error == asio::ssl::error::stream_truncated;
}

/// After a reply that ends the connection: reads and drops what the peer still sends, until it
/// closes or kDiscardTimeout, so unread request bytes cannot turn the close into a reset that
/// destroys the reply before the client reads it. Over TLS, TLS's close_notify goes first (it
/// also tells the client the reply is whole), and the client's own is waited for as long.
template <typename Stream>
void discardInput(BlockingStream& raw, Stream& stream) {
  raw.expiresAfter(sdk::kDiscardTimeout);
  error_code error;
  if constexpr (kOverTls<Stream>) {
    stream.shutdown(error);
    return;
  }
  raw.socket().shutdown(asio::ip::tcp::socket::shutdown_send, error);
  std::array<char, 4096> scratch{};
  while (!error)
    raw.read_some(asio::buffer(scratch), error);
}

/// Serves the requests of one connection, over `stream` (`raw`, or TLS over it), until it ends;
/// `buffer` holds what was read of them already.
template <typename Stream>
void serveRequests(ServerState& state, BlockingStream& raw, Stream& stream,
                   beast::flat_buffer& buffer) {
  while (!state.signals.draining()) {
    http::request_parser<http::string_body> parser;
    parser.body_limit(sdk::kMaxRequestBodyBytes);
    parser.header_limit(static_cast<std::uint32_t>(sdk::kMaxRequestHeaderBytes));
    const error_code read_error = readRequest(raw, stream, buffer, parser, state.header_deadline);
    if (endsConnection(read_error))
      break;

    sdk::Counted in_flight(state.requests_in_flight);
    sdk::Reply reply;
    bool close_after = true;
    if (read_error) {
      reply = asio_common::readErrorReply(read_error);
    } else {
      auto handled = handleRequest(state, parser.get(), raw);
      if (!handled)
        break;  // the client left while its request waited, or the stop gave up
      reply = std::move(*handled);
      close_after = false;
    }
    const bool keep_alive = !close_after && parser.get().keep_alive() && !state.no_keep_alive &&
                            !state.signals.draining();
    const std::string response =
        asio_common::responseBytes(reply, keep_alive, "benchd threads-asio");
    raw.expiresAfter(sdk::kIoTimeout);
    error_code write_error;
    asio::write(stream, asio::buffer(response), write_error);
    state.requests_served.fetch_add(1, std::memory_order_relaxed);
    in_flight.release();
    if (write_error)
      break;
    if (!keep_alive) {
      discardInput(raw, stream);
      break;
    }
  }
}

/// The connection's stream (`raw`, or TLS over it) as the HTTP/2 pump reads and writes it: a
/// read waits as BlockingStream waits, and gives way to the pump's wake descriptors; a write has
/// kIoTimeout; the stop ends both.
template <typename Stream>
class AsioConnectionIo final : public h2_blocking::ConnectionIo {
 public:
  AsioConnectionIo(BlockingStream& raw, Stream& stream) : raw_(raw), stream_(stream) {}

  h2_blocking::ReadOutcome readOrWake(char* buffer, std::size_t size, std::span<const int> wake_fds,
                                      std::chrono::milliseconds timeout) override {
    using Kind = h2_blocking::ReadOutcome::Kind;
    if (timeout.count() < 0) {
      raw_.expiresNever();
    } else {
      raw_.expiresAfter(timeout);
    }
    // Not poll() first: under TLS, input may wait inside Asio's TLS stream, which a read takes
    // at once; the wait inside the read gives way to the wake descriptors.
    raw_.wakeReadsOn(wake_fds);
    error_code error;
    const std::size_t got = stream_.read_some(asio::buffer(buffer, size), error);
    raw_.wakeReadsOn({});
    if (!error)
      return {Kind::kInput, got};
    if (error == asio::error::interrupted)
      return {Kind::kWoken, 0};
    if (error == beast::error::timeout)
      return {Kind::kTimedOut, 0};
    return {Kind::kEnded, 0};
  }

  bool writeAll(std::string_view bytes) override {
    raw_.expiresAfter(sdk::kIoTimeout);
    error_code error;
    asio::write(stream_, asio::buffer(bytes.data(), bytes.size()), error);
    return !error;
  }

 private:
  BlockingStream& raw_;
  Stream& stream_;
};

/// Serves an HTTP/2 connection over `stream` on this pool thread, which pumps its session while
/// each stream's request runs on a pool thread of its own (h2_blocking::serveHttp2);
/// `received` holds its first bytes when they were read already (the h2c preface).
template <typename Stream>
void serveHttp2(ServerState& state, BlockingStream& raw, Stream& stream,
                std::string_view received) {
  AsioConnectionIo<Stream> io(raw, stream);
  h2_blocking::PumpContext context;
  context.drain_fd = state.signals.drainFd();
  context.stop_fd = state.signals.stopFd();
  context.requests_in_flight = &state.requests_in_flight;
  context.requests_served = &state.requests_served;
  context.server_name = "benchd threads-asio";
  const h2_blocking::ServeStream serve = [&state](const h2_session::StreamRequest& request,
                                                  int gone_fd) {
    return handleRequest(state, request.method, request.target, request.body, gone_fd);
  };
  h2_blocking::serveHttp2(io, received, serve, *state.stream_runner, context);
}

/// What a connection in clear speaks under h2c, from its first bytes.
enum class FirstBytes { kHttp1, kHttp2, kNone };

/// Under h2c: waits for a connection's first bytes as for any first request (kIoTimeout, ended
/// by the drain), then reads, within the header deadline, until they tell whether they begin
/// with HTTP/2's client preface. What was read stays in `buffer`.
FirstBytes readFirstBytes(BlockingStream& raw, beast::flat_buffer& buffer,
                          std::chrono::milliseconds header_deadline) {
  raw.waitingForRequest(true);
  raw.expiresAfter(sdk::kIoTimeout);
  const error_code idle_end = raw.waitReadable();
  raw.waitingForRequest(false);
  if (idle_end)
    return FirstBytes::kNone;
  raw.expiresAfter(header_deadline);
  for (;;) {
    error_code error;
    const std::size_t got = raw.read_some(buffer.prepare(h2_session::kClientPreface.size()), error);
    buffer.commit(got);
    if (error)
      return buffer.size() == 0 ? FirstBytes::kNone : FirstBytes::kHttp1;
    const auto* data = static_cast<const char*>(buffer.data().data());
    switch (h2_session::matchClientPreface(std::string_view(data, buffer.size()))) {
      case h2_session::PrefaceMatch::kHttp2:
        return FirstBytes::kHttp2;
      case h2_session::PrefaceMatch::kHttp1:
        return FirstBytes::kHttp1;
      case h2_session::PrefaceMatch::kPartial:
        break;
    }
  }
}

}  // namespace

void serveConnection(ServerState& state, asio::ip::tcp::socket socket) {
  const sdk::Counted open(state.connections_open);
  error_code ignored;
  socket.set_option(asio::ip::tcp::no_delay(true), ignored);
  BlockingStream stream(std::move(socket), state.signals);
  // Capped: chunk lines and trailer sections are refused beyond it (sdk/limits.hpp).
  beast::flat_buffer buffer(sdk::kMaxUnparsedRequestBytes);
  if (state.tls) {
    TlsOverBlocking tls(stream, state.tls->server);
    // The handshake is part of the first request's header, and under its deadline.
    stream.expiresAfter(state.header_deadline);
    error_code handshake_error;
    tls.handshake(asio::ssl::stream_base::server, handshake_error);
    if (!handshake_error) {
      if (tls_support::negotiatedHttp2(tls.native_handle())) {
        serveHttp2(state, stream, tls, {});
      } else {
        serveRequests(state, stream, tls, buffer);
      }
    }
  } else if (state.h2c) {
    switch (readFirstBytes(stream, buffer, state.header_deadline)) {
      case FirstBytes::kHttp2: {
        const auto* data = static_cast<const char*>(buffer.data().data());
        serveHttp2(state, stream, stream, std::string_view(data, buffer.size()));
        break;
      }
      case FirstBytes::kHttp1:
        serveRequests(state, stream, stream, buffer);
        break;
      case FirstBytes::kNone:
        break;
    }
  } else {
    serveRequests(state, stream, stream, buffer);
  }
  stream.close();
}

}  // namespace benchd::threads_asio
