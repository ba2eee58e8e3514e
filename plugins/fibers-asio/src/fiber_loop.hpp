#pragma once

#include <benchd/asio_common/event_loop_group.hpp>

namespace benchd::fibers_asio {

/// Per-loop state of the fiber runtime. Everything is touched on the loop's thread only
/// (requestStop posts there).
class FiberLoop {
 public:
  /// `fiber_stack_bytes`: the usable stack of every fiber started on this loop.
  FiberLoop(asio_common::EventLoop& loop, std::size_t fiber_stack_bytes)
      : loop_(loop), fiber_stack_bytes_(fiber_stack_bytes) {}

  [[nodiscard]] std::size_t fiberStackBytes() const noexcept { return fiber_stack_bytes_; }

  /// The body of the loop's OS thread: runs the io_context on the thread's main fiber under
  /// AsioScheduler (fiber_scheduler_asio::runFibers), so connection fibers run inside
  /// io_context::run, until a stop was requested and every connection fiber has ended.
  void run();
  /// From the host thread, after every connection was told to close.
  void requestStop();

  /// Called by every connection fiber as it ends (loop thread).
  void fiberEnded();

 private:
  /// Stops the io_context once a stop was requested and no connection fiber is left.
  void stopIfFinished();

  asio_common::EventLoop& loop_;
  std::size_t fiber_stack_bytes_;
  bool stop_requested_ = false;
};

/// Counts the calling fiber as live for the guard's lifetime.
class LiveFiber {
 public:
  LiveFiber(FiberLoop& fiber_loop, asio_common::EventLoop& loop)
      : fiber_loop_(fiber_loop), loop_(loop) {
    asio_common::LoopCounters::add(loop_.counters.live_tasks, 1);
  }
  ~LiveFiber() {
    asio_common::LoopCounters::add(loop_.counters.live_tasks, -1);
    fiber_loop_.fiberEnded();
  }
  LiveFiber(const LiveFiber&) = delete;
  LiveFiber& operator=(const LiveFiber&) = delete;

 private:
  FiberLoop& fiber_loop_;
  asio_common::EventLoop& loop_;
};

}  // namespace benchd::fibers_asio
