#include "server.hpp"

#include "connection.hpp"

#include <boost/fiber/fiber.hpp>
#include <boost/fiber/fixedsize_stack.hpp>

namespace benchd::fibers_asio {

namespace {

/// Each connection fiber's stack. Beast's parser and the host's JSON writer stay well within
/// it; pages are only committed when touched, so 5,000 fibers cost little resident memory.
constexpr std::size_t kFiberStackBytes = std::size_t{128} * 1024;

}  // namespace

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host), loops_(std::move(settings)) {
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
                             boost::fibers::fixedsize_stack(kFiberStackBytes), &serveConnection,
                             &loop, fiber_loops_[loop.index].get(), &host_, std::move(socket))
            .detach();
      },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->run(); },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->requestStop(); });
}

}  // namespace benchd::fibers_asio
