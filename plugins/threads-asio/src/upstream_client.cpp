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
                                       sdk::ConnectionBudget& open_budget)
    : stream(asio::ip::tcp::socket(io), signals), budget(open_budget) {}

UpstreamConnection::~UpstreamConnection() {
  stream.close();
  budget.release();
}

UpstreamClient::UpstreamClient(const ServerSignals& signals,
                               std::chrono::milliseconds response_margin,
                               std::chrono::milliseconds idle_timeout)
    : signals_(signals), response_margin_(response_margin), idle_(idle_timeout) {}

void UpstreamClient::start(asio::io_context& io, const asio::ip::tcp::endpoint& self) {
  io_ = &io;
  self_ = self;
}

std::unique_ptr<UpstreamConnection> UpstreamClient::takeIdle() {
  auto taken = idle_.take(
      [](std::unique_ptr<UpstreamConnection>& idle) { return idle->stream.idleUsable(); });
  return taken ? std::move(*taken) : nullptr;
}

std::unique_ptr<UpstreamConnection> UpstreamClient::open() {
  if (!budget_.tryReserve())
    return nullptr;
  return std::make_unique<UpstreamConnection>(*io_, signals_, budget_);
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
    }
    connection->stream.watchClient(client_fd);
    connection->stream.expiresAfter(response_timeout);
    error_code error;
    http::write(connection->stream, request, error);
    bool received_any = false;
    http::response<http::string_body> response;
    if (!error) {
      const std::size_t read = http::read(connection->stream, connection->buffer, response, error);
      received_any = read != 0 || connection->buffer.size() != 0;
    }
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
