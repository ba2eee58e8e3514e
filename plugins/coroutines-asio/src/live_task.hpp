#pragma once

#include <benchd/asio_common/event_loop_group.hpp>

namespace benchd::coroutines_asio {

/// Counts one coroutine frame of `loop` as live for the guard's lifetime. Lives on the frame
/// it counts; the loop's thread only.
class LiveCoroutine {
 public:
  explicit LiveCoroutine(asio_common::EventLoop& loop) : loop_(loop) {
    asio_common::LoopCounters::add(loop_.counters.live_tasks, 1);
  }
  ~LiveCoroutine() { asio_common::LoopCounters::add(loop_.counters.live_tasks, -1); }
  LiveCoroutine(const LiveCoroutine&) = delete;
  LiveCoroutine& operator=(const LiveCoroutine&) = delete;

 private:
  asio_common::EventLoop& loop_;
};

}  // namespace benchd::coroutines_asio
