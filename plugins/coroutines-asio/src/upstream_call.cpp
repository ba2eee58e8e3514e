#include "upstream_call.hpp"

#include "completion_token.hpp"
#include "live_task.hpp"

#include <benchd/asio_common/connection_tracking.hpp>
#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace benchd::coroutines_asio {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using boost::system::error_code;

namespace {

/// One request and its answer on a connected stream, plain or TLS.
struct Exchange {
  error_code error;
  bool received_any = false;
  http::response<http::string_body> response;
};

template <typename Stream>
asio::awaitable<Exchange> exchange(Stream* stream, beast::flat_buffer* buffer,
                                   const http::request<http::empty_body>* request) {
  Exchange result;
  auto [write_error, written] = co_await http::async_write(*stream, *request, kNoThrow);
  result.error = write_error;
  if (!result.error) {
    auto [read_error, read] =
        co_await http::async_read(*stream, *buffer, result.response, kNoThrow);
    result.error = read_error;
    result.received_any = read != 0 || buffer->size() != 0;
  }
  co_return result;
}

}  // namespace

asio::awaitable<UpstreamResult> callUpstream(asio_common::EventLoop* loop, std::string target,
                                             asio_common::ClientWatch* watch) {
  const LiveCoroutine live(*loop);
  if (loop->curl)  // the client-curl profile
    co_return co_await loop->curl->asyncGet(std::move(target), *watch, asio::deferred);
  const auto request = asio_common::upstreamRequest(target);
  const auto response_timeout =
      sdk::upstreamResponseTimeoutFor(target, loop->group.upstreamResponseMargin());
  auto connection = loop->upstream.takeIdle();
  bool reused = connection != nullptr;
  // Closing the connection ends whatever the call waits for with an error.
  const auto interruption = watch->interruptWith([&connection] {
    if (connection)
      asio_common::closeStream(connection->stream);
  });
  for (;;) {
    if (watch->clientGone())
      co_return UpstreamResult{asio::error::operation_aborted, 0, {}};
    if (!connection) {
      connection = loop->upstream.open();
      if (!connection)
        co_return UpstreamResult{asio::error::no_buffer_space, 0, {}};
      reused = false;
      connection->stream.expires_after(sdk::kConnectTimeout);
      auto [connect_error] =
          co_await connection->stream.async_connect(loop->group.selfEndpoint(), kNoThrow);
      if (connect_error)
        co_return UpstreamResult{connect_error, 0, {}};
      error_code ignored;
      connection->stream.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
      if (connection->tls) {
        auto [handshake_error] =
            co_await connection->tls->async_handshake(asio::ssl::stream_base::client, kNoThrow);
        if (handshake_error)
          co_return UpstreamResult{handshake_error, 0, {}};
      }
    }
    connection->stream.expires_after(response_timeout);
    Exchange done;
    if (connection->tls) {
      done = co_await exchange(connection->tls.get(), &connection->buffer, &request);
    } else {
      done = co_await exchange(&connection->stream, &connection->buffer, &request);
    }
    auto& [error, received_any, response] = done;
    if (!error) {
      const bool reusable = response.keep_alive();
      UpstreamResult result;
      result.status = response.result_int();
      result.body.swap(response.body());
      if (reusable)
        loop->upstream.giveBack(std::move(connection));
      co_return result;
    }
    connection.reset();
    // A reused connection may have been closed by the server while it sat in the pool; that
    // shows as the peer's close before any answer, and only then is one more try on a new
    // connection safe (asio_common::staleKeepAlive); a new one is never retried.
    if (!asio_common::staleKeepAlive(reused, error, received_any))
      co_return UpstreamResult{error, 0, {}};
  }
}

}  // namespace benchd::coroutines_asio
