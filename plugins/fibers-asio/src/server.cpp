#include "server.hpp"

#include "connection.hpp"

#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <boost/fiber/fiber.hpp>

namespace benchd::fibers_asio {

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host), loops_(std::move(settings), host) {
  for (auto& loop : loops_.loops())
    fiber_loops_.push_back(std::make_unique<FiberLoop>(*loop));
}

void Server::start() {
  loops_.listen();
  loops_.start(
      [this](asio_common::EventLoop& loop, boost::asio::ip::tcp::socket socket) {
        // Runs on the loop's thread; launch::post only makes the fiber ready, so it starts
        // when the scheduler next picks, not inside this completion handler.
        boost::fibers::fiber(boost::fibers::launch::post, std::allocator_arg,
                             fiber_scheduler_asio::connectionFiberStack(), &serveConnection, &loop,
                             fiber_loops_[loop.index].get(), &host_, std::move(socket))
            .detach();
      },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->run(); },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->requestStop(); });
}

}  // namespace benchd::fibers_asio
