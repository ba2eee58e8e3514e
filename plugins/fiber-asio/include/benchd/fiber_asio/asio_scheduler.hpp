#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/fiber/algo/algorithm.hpp>
#include <boost/fiber/context.hpp>
#include <boost/fiber/scheduler.hpp>

#include <chrono>

namespace benchd::fiber_asio {

/// A Boost.Fiber scheduling algorithm whose idle time drives an Asio io_context, so fibers and
/// Asio completion handlers share one OS thread: fibers run round-robin while any is ready;
/// when none is, the scheduler waits in the io_context for the next completion (or the next
/// fiber timer), runs it and every other completion that is ready, then picks again.
///
/// Contract: install it on the thread that will run the io_context, with
/// boost::fibers::use_scheduling_algorithm<AsioScheduler>(io), and never run that io_context
/// from another thread (its handlers resume this thread's fibers). Keep work on the io_context
/// (a work guard) while fibers may wait for it; a context without work makes the scheduler spin.
/// notify() is the only member called from other threads.
class AsioScheduler final : public boost::fibers::algo::algorithm {
 public:
  explicit AsioScheduler(boost::asio::io_context& io) : io_(io) {}
  AsioScheduler(const AsioScheduler&) = delete;
  AsioScheduler& operator=(const AsioScheduler&) = delete;

  void awakened(boost::fibers::context* fiber) noexcept override;
  boost::fibers::context* pick_next() noexcept override;
  [[nodiscard]] bool has_ready_fibers() const noexcept override;
  void suspend_until(const std::chrono::steady_clock::time_point& deadline) noexcept override;
  void notify() noexcept override;

 private:
  boost::asio::io_context& io_;
  boost::fibers::scheduler::ready_queue_type ready_;
};

}  // namespace benchd::fiber_asio
