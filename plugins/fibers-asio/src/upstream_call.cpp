#include "upstream_call.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/fiber_scheduler_asio/use_fiber.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace benchd::fibers_asio {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;
using fiber_scheduler_asio::use_fiber;

namespace {

/// One request and its answer on a connected stream, plain or TLS.
struct Exchange {
  error_code error;
  bool received_any = false;
  http::response<http::string_body> response;
};

template <typename Stream>
Exchange exchange(Stream& stream, boost::beast::flat_buffer& buffer,
                  const http::request<http::empty_body>& request) {
  Exchange result;
  auto [write_error, written] = http::async_write(stream, request, use_fiber);
  result.error = write_error;
  if (!result.error) {
    auto [read_error, read] = http::async_read(stream, buffer, result.response, use_fiber);
    result.error = read_error;
    result.received_any = read != 0 || buffer.size() != 0;
  }
  return result;
}

}  // namespace

UpstreamResult callUpstream(asio_common::EventLoop& loop, const std::string& target,
                            asio_common::ClientWatch& watch) {
  if (loop.curl)  // the client-curl profile
    return loop.curl->asyncGet(target, watch, use_fiber);
  const auto request = asio_common::upstreamRequest(target);
  const auto response_timeout =
      sdk::upstreamResponseTimeoutFor(target, loop.group.upstreamResponseMargin());
  auto connection = loop.upstream.takeIdle();
  bool reused = connection != nullptr;
  // Closing the connection ends whatever the call waits for with an error.
  const auto interruption = watch.interruptWith([&connection] {
    if (connection)
      asio_common::closeStream(connection->stream);
  });
  for (;;) {
    if (watch.clientGone())
      return {asio::error::operation_aborted, 0, {}};
    if (!connection) {
      connection = loop.upstream.open();
      if (!connection)
        return {asio::error::no_buffer_space, 0, {}};
      reused = false;
      connection->stream.expires_after(sdk::kConnectTimeout);
      const error_code connect_error =
          connection->stream.async_connect(loop.group.selfEndpoint(), use_fiber);
      if (connect_error)
        return {connect_error, 0, {}};
      error_code ignored;
      connection->stream.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
      if (connection->tls) {
        const error_code handshake_error =
            connection->tls->async_handshake(asio::ssl::stream_base::client, use_fiber);
        if (handshake_error)
          return {handshake_error, 0, {}};
      }
    }
    connection->stream.expires_after(response_timeout);
    auto [error, received_any, response] =
        connection->tls ? exchange(*connection->tls, connection->buffer, request)
                        : exchange(connection->stream, connection->buffer, request);
    if (!error) {
      // Beast's read moves the message into its parser and back on completion; the analyzer
      // cannot see the completion resume this fiber.
      const bool reusable = response.keep_alive();  // NOLINT(clang-analyzer-cplusplus.Move)
      UpstreamResult result;
      result.status = response.result_int();
      result.body.swap(response.body());
      if (reusable)
        loop.upstream.giveBack(std::move(connection));
      return result;
    }
    connection.reset();
    // A reused connection may have been closed by the server while it sat in the pool; that
    // shows as the peer's close before any answer, and only then is one more try on a new
    // connection safe (asio_common::staleKeepAlive); a new one is never retried.
    if (!asio_common::staleKeepAlive(reused, error, received_any))
      return {error, 0, {}};
  }
}

}  // namespace benchd::fibers_asio
