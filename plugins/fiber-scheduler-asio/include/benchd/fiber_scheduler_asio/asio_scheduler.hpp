#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/scheduler.hpp>

#include <chrono>

namespace benchd::fiber_scheduler_asio {

/// A Boost.Fiber scheduling algorithm that shares one OS thread between fibers and an Asio
/// io_context. Fibers run round-robin (FIFO) and wait for Asio operations through use_fiber.
///
/// Two ways to run the thread, and the first is the fast one:
///
/// - **The main fiber runs the io_context** (`io.run()` on the thread that installed the
///   scheduler; see runFibers()). Whenever a completion or a fiber makes another fiber ready,
///   the scheduler posts one "turn" to the io_context; the turn, run by the main fiber inside
///   io_context::run, yields to every ready fiber and returns when they have all suspended
///   again. So fibers start their operations from inside io_context::run, as callback code
///   does: Asio's per-thread recycling of operation memory and its lock-free private queue for
///   posts apply to them, which they do not when the io_context is run from the dispatcher
///   (measured in bench/plugins/profile-at-scale.sh, docs/approaches.md). Fiber sleeps and timed
///   waits still work: the dispatcher's earliest deadline arms a timer on the io_context.
/// - **The main fiber waits for fibers** (e.g. join()): when no fiber is ready, the dispatcher
///   blocks in the io_context for the next completion (or the next fiber deadline), runs it and
///   every other completion that is ready, then picks again.
///
/// Contract: install it on the thread that runs the io_context, with
/// boost::fibers::use_scheduling_algorithm<AsioScheduler>(io), and never run that io_context
/// from another thread (its handlers resume this thread's fibers). Keep work on the io_context
/// (a work guard) while fibers may wait for it; a context without work makes the scheduler spin.
/// notify() is the only member called from other threads.
class AsioScheduler final : public boost::fibers::algo::algorithm {
 public:
  explicit AsioScheduler(boost::asio::io_context& io);
  ~AsioScheduler() override;
  AsioScheduler(const AsioScheduler&) = delete;
  AsioScheduler& operator=(const AsioScheduler&) = delete;

  void awakened(boost::fibers::context* fiber) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  [[nodiscard]] bool has_ready_fibers() const noexcept override;
  void suspend_until(const std::chrono::steady_clock::time_point& deadline) noexcept override;
  void notify() noexcept override;

 private:
  /// The scheduler installed on the calling thread if it is `io`'s, else null. For the
  /// handlers it posts to `io`: they may outlive it (an io_context run again after its fiber
  /// thread ended) or run on another thread.
  static AsioScheduler* installedFor(const boost::asio::io_context* io) noexcept;
  /// Posts a turn unless one is pending (loop thread).
  void postTurn() noexcept;
  /// Arms sleep_timer_ so that the main fiber, blocked in io_context::run, wakes for the fiber
  /// deadline `deadline` (loop thread).
  void wakeMainFiberAt(std::chrono::steady_clock::time_point deadline) noexcept;

  boost::asio::io_context& io_;
  boost::fibers::scheduler::ready_queue_type ready_;
  bool turn_posted_ = false;
  boost::fibers::context* dispatcher_ = nullptr;  ///< this thread's, once it was ready
  /// The dispatcher's last pick_next() returned nothing so that it reports the earliest fiber
  /// deadline (see pick_next).
  bool deadline_reported_ = false;
  boost::asio::steady_timer sleep_timer_;
  std::chrono::steady_clock::time_point sleep_timer_deadline_ =
      std::chrono::steady_clock::time_point::max();
};

/// Runs `io` on the calling thread's main fiber with AsioScheduler installed, the fast way
/// described there: returns when `io` runs out of work or is stopped. Call once per thread,
/// on a thread that has not installed another scheduler.
void runFibers(boost::asio::io_context& io);

}  // namespace benchd::fiber_scheduler_asio
