#include "stop_watchdog.hpp"

#include <benchd/worker/worker_protocol.hpp>

#include <cstdio>
#include <cstdlib>

namespace benchd::worker {

StopWatchdog::StopWatchdog(std::chrono::milliseconds limit, std::string plugin_name)
    : plugin_name_(std::move(plugin_name)), thread_([this, limit] { watch(limit); }) {}

StopWatchdog::~StopWatchdog() {
  {
    const std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  disarmed_signal_.notify_one();
  thread_.join();
}

void StopWatchdog::watch(std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  if (disarmed_signal_.wait_for(lock, limit, [this] { return disarmed_; }))
    return;
  // The plugin still holds the main thread inside stop(): nothing it owns can be destroyed
  // safely, so the process ends without unwinding.
  std::fprintf(stderr,
               "%s%s: stop() did not return within %lld ms (the stop timeout and %lld s more): "
               "ending the worker\n",
               std::string(kErrorPrefix).c_str(), plugin_name_.c_str(),
               static_cast<long long>(limit.count()), static_cast<long long>(kStopGrace.count()));
  std::fflush(stderr);
  std::_Exit(kExitCutOff);
}

}  // namespace benchd::worker
