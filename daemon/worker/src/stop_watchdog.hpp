#pragma once
// Bounds a worker's stop whatever its plugin does. CONTRACT.md section 8 has stop() end every
// wait and return within the stop timeout; a plugin that does not (a thread blocked where the
// stop cannot reach it, a server library that joins thousands of connection threads one by one)
// would otherwise leave the worker running until someone sends SIGKILL.

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace benchd::worker {

/// How long after the stop timeout the watchdog still waits for stop() to return: room for a
/// plugin that closes thousands of connections after cutting its requests off.
inline constexpr std::chrono::seconds kStopGrace{5};

/// Armed when the stop begins; ends the process (a message on stderr naming the plugin, exit
/// code kExitCutOff, no destructors) unless disarmed within `limit`. The destructor disarms it
/// and joins its thread. Made and destroyed by the worker's main thread only.
class StopWatchdog {
 public:
  StopWatchdog(std::chrono::milliseconds limit, std::string plugin_name);
  ~StopWatchdog();
  StopWatchdog(const StopWatchdog&) = delete;
  StopWatchdog& operator=(const StopWatchdog&) = delete;

 private:
  void watch(std::chrono::milliseconds limit);

  std::string plugin_name_;
  std::mutex mutex_;
  std::condition_variable disarmed_signal_;
  bool disarmed_ = false;
  std::thread thread_;
};

}  // namespace benchd::worker
