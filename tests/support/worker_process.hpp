#pragma once
// The tests' benchd-worker: the conformance library's (benchd/conformance/worker_process.hpp),
// started from this build's worker and plugin folder.

#include <benchd/conformance/worker_process.hpp>

#include <memory>
#include <string>
#include <vector>

namespace benchd::testing {

using conformance::WorkerStats;

/// conformance::WorkerProcess running this build's benchd-worker (workerPath()).
class WorkerProcess : public conformance::WorkerProcess {
 public:
  explicit WorkerProcess(const std::vector<std::string>& args);

  /// A worker serving the built plugin `plugin` (a file stem, e.g. "callbacks-asio") on an
  /// ephemeral port, stats every 50 ms.
  static std::unique_ptr<WorkerProcess> serve(const std::string& plugin,
                                              std::vector<std::string> extra_args = {});
};

/// Absolute path of a built plugin, by file name stem (e.g. "callbacks-asio").
std::string pluginPath(const std::string& name);

}  // namespace benchd::testing
