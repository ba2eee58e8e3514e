#include "fiber_loop.hpp"

#include <benchd/fiber_scheduler_asio/asio_scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

namespace benchd::fibers_asio {

void FiberLoop::stopIfFinished() {
  if (stop_requested_ && loop_.counters.live_tasks.load(std::memory_order_relaxed) == 0)
    loop_.io.stop();
}

void FiberLoop::run() {
  // Our own work guard: the group drops its guard when stopping, but the io_context must keep
  // running (not return) until the last fiber is gone; stopIfFinished() ends it.
  auto work = boost::asio::make_work_guard(loop_.io);
  fiber_scheduler_asio::runFibers(loop_.io);
}

void FiberLoop::requestStop() {
  boost::asio::post(loop_.io, [this] {
    stop_requested_ = true;
    stopIfFinished();
  });
}

void FiberLoop::fiberEnded() {
  stopIfFinished();
}

}  // namespace benchd::fibers_asio
