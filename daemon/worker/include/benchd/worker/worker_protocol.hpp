#pragma once

#include <string_view>

namespace benchd::worker {

// What benchd-worker promises the processes that start it (benchd's runner and plugin
// catalog): its exit codes and how its error lines begin. The JSON event lines it prints on
// stdout are described in worker_events.hpp.

enum ExitCode : int {
  kExitStopped = 0,        ///< stopped cleanly (or --inspect printed the plugin line)
  kExitFailure = 1,        ///< anything else that went wrong
  kExitUsage = 2,          ///< bad arguments or plugin options
  kExitPluginRefused = 3,  ///< the plugin was refused (file checks, dlopen, ABI, descriptor)
  kExitStartFailed = 4,    ///< the server did not start (e.g. the port is in use)
  kExitCutOff = 5,         ///< requests in flight were cut off at the stop timeout
};

/// Every error line on stderr starts with this, followed by one sentence.
inline constexpr std::string_view kErrorPrefix = "benchd-worker: error: ";

}  // namespace benchd::worker
