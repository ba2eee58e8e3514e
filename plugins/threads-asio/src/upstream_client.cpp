#include "upstream_client.hpp"

#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace benchd::threads_asio {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;

UpstreamConnection::UpstreamConnection(asio::io_context& io, const ServerSignals& signals,
                                       sdk::ConnectionBudget& open_budget,
                                       asio::ssl::context* tls_client)
    : stream(asio::ip::tcp::socket(io), signals), budget(open_budget) {
  if (tls_client != nullptr)
    tls.emplace(stream, *tls_client);
}

UpstreamConnection::~UpstreamConnection() {
  stream.close();
  budget.release();
}

UpstreamClient::UpstreamClient(const ServerSignals& signals,
                               std::chrono::milliseconds response_margin,
                               std::chrono::milliseconds idle_timeout)
    : signals_(signals), response_margin_(response_margin), idle_(idle_timeout) {}

void UpstreamClient::start(asio::io_context& io, const asio::ip::tcp::endpoint& self,
                           asio::ssl::context* tls_client) {
  io_ = &io;
  self_ = self;
  tls_client_ = tls_client;
}

std::unique_ptr<UpstreamConnection> UpstreamClient::takeIdle() {
  auto taken = idle_.take(
      [](std::unique_ptr<UpstreamConnection>& idle) { return idle->stream.idleUsable(); });
  return taken ? std::move(*taken) : nullptr;
}

std::unique_ptr<UpstreamConnection> UpstreamClient::open() {
  if (!budget_.tryReserve())
    return nullptr;
  return std::make_unique<UpstreamConnection>(*io_, signals_, budget_, tls_client_);
}

void UpstreamClient::giveBack(std::unique_ptr<UpstreamConnection> connection) {
  connection->stream.watchClient(-1);
  connection->stream.expiresNever();
  idle_.put(std::move(connection));
}

UpstreamClient::Outcome UpstreamClient::call(const std::string& target, int client_fd) {
  const auto request = asio_common::upstreamRequest(target);
  const auto response_timeout = sdk::upstreamResponseTimeoutFor(target, response_margin_);
  auto connection = takeIdle();
  bool reused = connection != nullptr;
  const auto failed = [&connection](error_code error) {
    const bool gone = connection && connection->stream.clientGone();
    return Outcome{UpstreamResult{error, 0, {}}, gone};
  };
  for (;;) {
    if (!connection) {
      connection = open();
      if (!connection)
        return failed(asio::error::no_buffer_space);
      reused = false;
      connection->stream.watchClient(client_fd);
      connection->stream.expiresAfter(sdk::kConnectTimeout);
      error_code connect_error;
      connection->stream.connect(self_, connect_error);
      if (connect_error)
        return failed(connect_error);
      error_code ignored;
      connection->stream.socket().set_option(asio::ip::tcp::no_delay(true), ignored);
      if (connection->tls) {
        // Within the connect's deadline; the client context verifies nothing (this server).
        error_code handshake_error;
        connection->tls->handshake(asio::ssl::stream_base::client, handshake_error);
        if (handshake_error)
          return failed(handshake_error);
      }
    }
    connection->stream.watchClient(client_fd);
    connection->stream.expiresAfter(response_timeout);
    error_code error;
    bool received_any = false;
    http::response<http::string_body> response;
    connection->onStream([&](auto& stream) {
      http::write(stream, request, error);
      if (!error) {
        const std::size_t read = http::read(stream, connection->buffer, response, error);
        received_any = read != 0 || connection->buffer.size() != 0;
      }
    });
    if (!error) {
      Outcome outcome;
      outcome.result.status = response.result_int();
      outcome.result.body.swap(response.body());
      if (response.keep_alive())
        giveBack(std::move(connection));
      return outcome;
    }
    if (connection->stream.clientGone() || signals_.stopped())
      return failed(error);
    connection.reset();
    // Only a pooled connection the server closed while it sat in the pool is tried again, once,
    // on a new connection (asio_common::staleKeepAlive).
    if (!asio_common::staleKeepAlive(reused, error, received_any))
      return failed(error);
  }
}

}  // namespace benchd::threads_asio
