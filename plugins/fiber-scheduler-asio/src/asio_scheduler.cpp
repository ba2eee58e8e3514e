#include <benchd/fiber_scheduler_asio/asio_scheduler.hpp>

#include <boost/asio/post.hpp>
#include <boost/fiber/operations.hpp>
#include <boost/fiber/type.hpp>

namespace benchd::fiber_scheduler_asio {

namespace {

using boost::fibers::context;
using boost::fibers::type;

/// The scheduler installed on this thread (see AsioScheduler::installedFor).
thread_local AsioScheduler* t_scheduler = nullptr;

/// The main fiber, inside io_context::run, lets every ready fiber run once before it goes on
/// with the io_context's handlers. Run by the dispatcher (the main fiber waits for fibers and
/// the dispatcher drives the io_context) it does nothing: the dispatcher picks the ready
/// fibers itself as soon as the completion returns.
void yieldToReadyFibers() {
  if (context::active()->is_context(type::main_context))
    boost::this_fiber::yield();
}

}  // namespace

AsioScheduler* AsioScheduler::installedFor(const boost::asio::io_context* io) noexcept {
  return t_scheduler != nullptr && &t_scheduler->io_ == io ? t_scheduler : nullptr;
}

AsioScheduler::AsioScheduler(boost::asio::io_context& io) : io_(io), sleep_timer_(io) {
  t_scheduler = this;
}

AsioScheduler::~AsioScheduler() {
  t_scheduler = nullptr;
}

void AsioScheduler::awakened(context* fiber) noexcept {
  fiber->ready_link(ready_);
  if (fiber->is_context(type::worker_context))
    postTurn();
  else if (fiber->is_context(type::dispatcher_context))
    dispatcher_ = fiber;
}

context* AsioScheduler::pick_next() noexcept {
  // No I/O polling here: a completion run from inside pick_next could make ready the very
  // fiber that is suspending, before its switch is complete.
  if (ready_.empty())
    return nullptr;
  context* next = &ready_.front();
  if (next->is_context(type::main_context)) {
    // The main fiber is back from a turn (it runs the io_context) or from a wait. The
    // dispatcher goes first: it releases ended fibers and wakes due sleepers, and it alone
    // knows the earliest fiber deadline, which it tells only through suspend_until(), only
    // when it finds nothing to pick. So it finds nothing once; its suspend_until() arms the
    // main fiber's wake-up and returns at once (see there), and its next pick is the main fiber.
    if (context::active()->is_context(type::dispatcher_context)) {
      deadline_reported_ = !deadline_reported_;
      if (deadline_reported_)
        return nullptr;
    } else if (dispatcher_ != nullptr && dispatcher_->ready_is_linked()) {
      dispatcher_->ready_unlink();
      return dispatcher_;
    }
  }
  ready_.pop_front();
  return next;
}

bool AsioScheduler::has_ready_fibers() const noexcept {
  return !ready_.empty();
}

void AsioScheduler::suspend_until(const std::chrono::steady_clock::time_point& deadline) noexcept {
  if (!ready_.empty()) {
    // pick_next's pass before the main fiber: wake it (in io_context::run) for the deadline.
    if (deadline != std::chrono::steady_clock::time_point::max())
      wakeMainFiberAt(deadline);
    return;
  }
  // No fiber is ready, the main fiber included: block in the io_context until one completion
  // runs (it typically makes a fiber ready) or a fiber deadline is due, then run the other
  // completions that are already waiting, so one wake-up serves a whole batch.
  if (deadline == std::chrono::steady_clock::time_point::max()) {
    io_.run_one();
  } else {
    io_.run_one_until(deadline);
  }
  io_.poll();
}

void AsioScheduler::notify() noexcept {
  // A fiber of this thread was made ready by another thread: it sits in the scheduler's remote
  // queue until the dispatcher runs, which a turn brings about (or run_one() returning, when
  // the dispatcher drives the io_context).
  boost::asio::post(io_, [io = &io_] {
    if (installedFor(io) != nullptr)
      yieldToReadyFibers();
  });
}

void AsioScheduler::postTurn() noexcept {
  if (turn_posted_)
    return;
  turn_posted_ = true;
  boost::asio::post(io_, [io = &io_] {
    AsioScheduler* scheduler = installedFor(io);
    if (scheduler == nullptr)
      return;
    scheduler->turn_posted_ = false;
    yieldToReadyFibers();
  });
}

void AsioScheduler::wakeMainFiberAt(std::chrono::steady_clock::time_point deadline) noexcept {
  if (deadline >= sleep_timer_deadline_)
    return;  // an earlier wake-up is armed; the dispatcher reports this one again after it
  sleep_timer_deadline_ = deadline;
  sleep_timer_.expires_at(deadline);  // cancels the later wake-up
  sleep_timer_.async_wait([io = &io_](boost::system::error_code error) {
    AsioScheduler* scheduler = error ? nullptr : installedFor(io);
    if (scheduler == nullptr)
      return;  // replaced by an earlier deadline, or the scheduler is gone
    scheduler->sleep_timer_deadline_ = std::chrono::steady_clock::time_point::max();
    yieldToReadyFibers();  // the dispatcher runs in this turn and wakes the due fibers
  });
}

void runFibers(boost::asio::io_context& io) {
  boost::fibers::use_scheduling_algorithm<AsioScheduler>(io);
  io.run();
}

}  // namespace benchd::fiber_scheduler_asio
