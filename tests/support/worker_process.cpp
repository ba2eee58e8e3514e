#include "worker_process.hpp"

#include "build_paths.hpp"

#include <stdexcept>

namespace benchd::testing {

std::string pluginPath(const std::string& name) {
  std::string path = pluginDir();
  path += '/';
  path += name;
  path += ".so";
  return path;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& args)
    : conformance::WorkerProcess(workerPath(), args) {}

std::unique_ptr<WorkerProcess> WorkerProcess::serve(const std::string& plugin,
                                                    std::vector<std::string> extra_args) {
  std::vector<std::string> args;
  args.reserve(6 + extra_args.size());
  args.emplace_back("--plugin");
  args.push_back(pluginPath(plugin));
  for (const char* fixed : {"--port", "0", "--stats-interval-ms", "50"})
    args.emplace_back(fixed);
  for (auto& arg : extra_args)
    args.push_back(std::move(arg));
  auto worker = std::make_unique<WorkerProcess>(args);
  if (!worker->waitReady()) {
    throw std::runtime_error("worker for " + plugin +
                             " did not get ready: " + worker->stderrText());
  }
  return worker;
}

}  // namespace benchd::testing
