#include "server.hpp"

#include "connection.hpp"

#include <boost/asio/co_spawn.hpp>

#include <exception>

namespace benchd::coroutines_asio {

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host), loops_(std::move(settings), host) {}

void Server::start() {
  loops_.listen();
  loops_.start([this](asio_common::EventLoop& loop, boost::asio::ip::tcp::socket socket) {
    boost::asio::co_spawn(loop.io, serveConnection(&loop, &host_, std::move(socket)),
                          [this](const std::exception_ptr& failure) {
                            if (!failure)
                              return;
                            try {
                              std::rethrow_exception(failure);
                            } catch (const std::exception& e) {
                              host_.log(BENCHD_LOG_ERROR,
                                        std::string("connection failed: ") + e.what());
                            }
                          });
  });
}

}  // namespace benchd::coroutines_asio
