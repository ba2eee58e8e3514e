#include "server.hpp"

#include "session.hpp"

namespace benchd::callbacks_asio {

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host), loops_(std::move(settings), host) {}

void Server::start() {
  loops_.listen();
  loops_.start([this](asio_common::EventLoop& loop, boost::asio::ip::tcp::socket socket) {
    std::make_shared<Session>(loop, host_, std::move(socket))->start();
  });
}

}  // namespace benchd::callbacks_asio
