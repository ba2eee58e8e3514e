#pragma once

#include <benchd/asio_common/event_loop_group.hpp>
#include <benchd/fiber_scheduler_asio/fiber_stack.hpp>

#include <memory>

namespace benchd::fibers_asio {

/// Per-loop state of the fiber runtime. Everything is touched on the loop's thread only
/// (requestStop posts there).
class FiberLoop {
 public:
  /// `fiber_stack_bytes`: the usable stack of every fiber started on this loop.
  FiberLoop(asio_common::EventLoop& loop, std::size_t fiber_stack_bytes)
      : loop_(loop),
        stacks_(std::make_shared<fiber_scheduler_asio::FiberStackPool>(fiber_stack_bytes)) {}

  /// The stack allocator for a fiber of this loop (a connection's, a stream's, a writer's):
  /// stacks come from, and go back to, this loop's pool. Loop thread only.
  [[nodiscard]] fiber_scheduler_asio::PooledFiberStack fiberStack() const {
    return fiber_scheduler_asio::PooledFiberStack(stacks_);
  }

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
  /// Shared with every fiber's allocator: Boost.Fiber may free an ended fiber's stack after
  /// this object is gone (when the thread's scheduler goes).
  std::shared_ptr<fiber_scheduler_asio::FiberStackPool> stacks_;
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
