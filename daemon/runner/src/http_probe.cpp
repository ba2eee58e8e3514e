#include "http_probe.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace benchd::runner {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

HttpReply probeHttp(std::uint16_t port, const std::string& method, const std::string& target,
                    const std::string& body, std::chrono::milliseconds timeout) {
  asio::io_context io;
  beast::tcp_stream stream(io);
  beast::flat_buffer buffer;
  http::request<http::string_body> request(http::string_to_verb(method), target, 11);
  request.set(http::field::host, "127.0.0.1");
  if (!body.empty()) {
    request.set(http::field::content_type, "application/json");
    request.body() = body;
  }
  request.prepare_payload();
  http::response<http::string_body> response;
  // The operations chain on one io_context; the stream's deadline covers all of them.
  boost::system::error_code failure;
  const char* failed_step = nullptr;
  stream.expires_after(timeout);
  stream.async_connect(
      asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port),
      [&](boost::system::error_code connect_error) {
        if (connect_error) {
          failure = connect_error;
          failed_step = "connect";
          return;
        }
        http::async_write(
            stream, request, [&](boost::system::error_code write_error, std::size_t /*bytes*/) {
              if (write_error) {
                failure = write_error;
                failed_step = "send";
                return;
              }
              http::async_read(stream, buffer, response,
                               [&](boost::system::error_code read_error, std::size_t /*bytes*/) {
                                 if (read_error) {
                                   failure = read_error;
                                   failed_step = "read the answer";
                                 }
                               });
            });
      });
  io.run();
  if (failed_step != nullptr) {
    const std::string reason = failure == beast::error::timeout
                                   ? "no answer within " + std::to_string(timeout.count()) + " ms"
                                   : failure.message();
    throw HttpProbeError(method + " " + target + ": cannot " + failed_step + ": " + reason);
  }
  return {response.result_int(), std::move(response.body())};
}

}  // namespace benchd::runner
