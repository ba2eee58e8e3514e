#include "fiber_loop.hpp"

#include <benchd/fiber_asio/asio_scheduler.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/fiber/operations.hpp>

#include <mutex>

namespace benchd::fibers_asio {

bool FiberLoop::finished() const {
  return stop_requested_ && loop_.counters.live_tasks.load(std::memory_order_relaxed) == 0;
}

void FiberLoop::run() {
  boost::fibers::use_scheduling_algorithm<fiber_asio::AsioScheduler>(loop_.io);
  // Our own work guard: the group drops its guard when stopping, but the scheduler must keep
  // blocking in the io_context (not spin) until the last fiber is gone.
  auto work = boost::asio::make_work_guard(loop_.io);
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return finished(); });
}

void FiberLoop::requestStop() {
  boost::asio::post(loop_.io, [this] {
    stop_requested_ = true;
    changed_.notify_all();
  });
}

void FiberLoop::fiberEnded() {
  if (finished())
    changed_.notify_all();
}

}  // namespace benchd::fibers_asio
