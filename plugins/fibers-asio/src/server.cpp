#include "server.hpp"

#include "connection.hpp"

#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <boost/fiber/fiber.hpp>

#include <cstdint>

namespace benchd::fibers_asio {
namespace {

std::size_t fiberStackBytes(const sdk::ServerSettings& settings) {
  const std::int64_t kib = sdk::integerOption(
      settings, Server::kFiberStackOption, fiber_scheduler_asio::kFiberStackBytes / 1024,
      fiber_scheduler_asio::kMinFiberStackKib, fiber_scheduler_asio::kMaxFiberStackKib, "KiB");
  return static_cast<std::size_t>(kib) * 1024;
}

}  // namespace

Server::Server(const benchd_host_api* host, sdk::ServerSettings settings)
    : host_(host),
      fiber_stack_bytes_(fiberStackBytes(settings)),
      loops_(std::move(settings), host) {
  for (auto& loop : loops_.loops())
    fiber_loops_.push_back(std::make_unique<FiberLoop>(*loop, fiber_stack_bytes_));
}

void Server::start() {
  loops_.listen();
  loops_.start(
      [this](asio_common::EventLoop& loop, boost::asio::ip::tcp::socket socket) {
        // Runs on the loop's thread; launch::post only makes the fiber ready, so it starts
        // when the scheduler next picks, not inside this completion handler.
        boost::fibers::fiber(boost::fibers::launch::post, std::allocator_arg,
                             fiber_loops_[loop.index]->fiberStack(), &serveConnection, &loop,
                             fiber_loops_[loop.index].get(), &host_, std::move(socket))
            .detach();
      },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->run(); },
      [this](asio_common::EventLoop& loop) { fiber_loops_[loop.index]->requestStop(); });
}

}  // namespace benchd::fibers_asio
