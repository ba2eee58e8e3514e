#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace benchd::cli {

/// While alive, SIGINT and SIGTERM call `on_stop` (once, on a watcher thread) instead of killing
/// the process; a second signal exits at once with 128 + signal. Construct it before starting
/// other threads: it blocks both signals in the constructing thread, and threads created later
/// inherit the mask. The destructor stops the watcher and restores the mask.
class StopOnSignal {
 public:
  explicit StopOnSignal(std::function<void()> on_stop);
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void watch();

  std::function<void()> on_stop_;
  std::atomic<bool> done_{false};
  std::thread watcher_;
};

}  // namespace benchd::cli
