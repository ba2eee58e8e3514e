#include <benchd/runner/http_probe.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <optional>

namespace benchd::runner {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using boost::system::error_code;

namespace {

/// The state of one probe's chain of operations, all on one io_context run by the caller.
struct Probe {
  http::request<http::string_body> request;
  http::response<http::string_body> response;
  beast::flat_buffer buffer;
  error_code failure;
  const char* failed_step = nullptr;

  void fail(const error_code& error, const char* step) {
    failure = error;
    failed_step = step;
  }

  /// Sends the request on `stream` (plain or TLS) and reads the answer.
  template <typename Stream>
  void exchange(Stream& stream) {
    http::async_write(stream, request, [this, &stream](const error_code& error, std::size_t) {
      if (error) {
        fail(error, "send");
        return;
      }
      http::async_read(stream, buffer, response, [this](const error_code& read_error, std::size_t) {
        if (read_error)
          fail(read_error, "read the answer");
      });
    });
  }
};

}  // namespace

HttpReply probeHttp(std::uint16_t port, const std::string& method, const std::string& target,
                    const std::string& body, std::chrono::milliseconds timeout,
                    ProbeTransport transport, const std::string& address) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  Probe probe;
  probe.request = {http::string_to_verb(method), target, 11};
  probe.request.set(http::field::host, address);
  error_code not_an_address;
  const asio::ip::address destination = asio::ip::make_address(address, not_an_address);
  if (not_an_address)
    throw HttpProbeError(method + " " + target + ": '" + address + "' is not a numeric address");
  if (!body.empty()) {
    probe.request.set(http::field::content_type, "application/json");
    probe.request.body() = body;
  }
  probe.request.prepare_payload();
  // TLS to the run's own worker: its certificate is the one the run made, so nothing is
  // verified (a probe checks health and answers, not identity).
  std::optional<asio::ssl::context> tls_context;
  std::optional<asio::ssl::stream<beast::tcp_stream&>> tls;
  if (transport == ProbeTransport::kTls) {
    tls_context.emplace(asio::ssl::context::tls_client);
    tls_context->set_verify_mode(asio::ssl::verify_none);
    tls.emplace(stream, *tls_context);
  }
  // The operations chain on one io_context; the stream's deadline covers all of them.
  stream.expires_after(timeout);
  stream.async_connect(asio::ip::tcp::endpoint(destination, port),
                       [&](const error_code& connect_error) {
                         if (connect_error) {
                           probe.fail(connect_error, "connect");
                           return;
                         }
                         if (!tls) {
                           probe.exchange(stream);
                           return;
                         }
                         tls->async_handshake(asio::ssl::stream_base::client,
                                              [&](const error_code& handshake_error) {
                                                if (handshake_error) {
                                                  probe.fail(handshake_error, "complete TLS");
                                                  return;
                                                }
                                                probe.exchange(*tls);
                                              });
                       });
  io.run();
  if (probe.failed_step != nullptr) {
    const std::string reason = probe.failure == beast::error::timeout
                                   ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                   : probe.failure.message();
    throw HttpProbeError(method + " " + target + ": cannot " + probe.failed_step + ": " + reason);
  }
  return {probe.response.result_int(), std::move(probe.response.body())};
}

}  // namespace benchd::runner
