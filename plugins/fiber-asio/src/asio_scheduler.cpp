#include <benchd/fiber_asio/asio_scheduler.hpp>

#include <boost/asio/post.hpp>

namespace benchd::fiber_asio {

void AsioScheduler::awakened(boost::fibers::context* fiber) noexcept {
  fiber->ready_link(ready_);
}

boost::fibers::context* AsioScheduler::pick_next() noexcept {
  // No I/O polling here: a completion run from inside pick_next could make ready the very
  // fiber that is suspending, before its switch is complete.
  if (ready_.empty())
    return nullptr;
  boost::fibers::context* fiber = &ready_.front();
  ready_.pop_front();
  return fiber;
}

bool AsioScheduler::has_ready_fibers() const noexcept {
  return !ready_.empty();
}

void AsioScheduler::suspend_until(const std::chrono::steady_clock::time_point& deadline) noexcept {
  // Called on the dispatcher fiber when no fiber is ready: block in the io_context until one
  // completion runs (it typically makes a fiber ready) or a fiber timer is due, then run the
  // other completions that are already waiting, so one wake-up serves a whole batch.
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    io_.run_one();
  } else {
    io_.run_one_until(deadline);
  }
  io_.poll();
}

void AsioScheduler::notify() noexcept {
  // A fiber of this thread was made ready by another thread: wake run_one().
  boost::asio::post(io_, [] {});
}

}  // namespace benchd::fiber_asio
