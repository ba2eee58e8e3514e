#pragma once

#include <benchd/http/router.hpp>
#include <benchd/runner/plugin_catalog.hpp>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace benchd::runner {
class WorkerSupervisor;
}

namespace benchd::agent {

/// The server role of an agent: workers its coordinator asks for, each serving one approach
/// plugin of this agent's own catalog, chosen by name (never a path), bound to the agent's
/// address so the coordinator's generators reach it.
///
/// Thread-safety: the routes' handlers run on the HTTP server's threads, concurrently; a mutex
/// guards the workers. Starting a worker blocks its handler until the worker is healthy (a
/// second or so; at most `ready_timeout`).
class AgentWorkers {
 public:
  struct Options {
    /// The agent's plugins as they are now (its plugin folders, inspected).
    std::function<runner::PluginCatalog()> catalog;
    std::filesystem::path worker;  ///< the benchd-worker executable
    std::string bind;              ///< the address workers listen on: the agent's own
    std::chrono::milliseconds ready_timeout{30'000};
    std::chrono::milliseconds stop_timeout{5'000};  ///< each worker's --stop-timeout-ms
  };

  explicit AgentWorkers(Options options);
  /// Stops every worker still running.
  ~AgentWorkers();
  AgentWorkers(const AgentWorkers&) = delete;
  AgentWorkers& operator=(const AgentWorkers&) = delete;

  /// POST /api/v1/agent/workers {"approach", "profiles"?, "options"?, "threads"?, "port"?}:
  /// 201 with {"id", "approach", "address", "port"}; 400 naming the field; 404 for an approach
  /// this agent does not have (its names listed); 502 when the worker did not become healthy.
  /// GET /api/v1/agent/workers/{id}: {"id", "approach", "address", "port", "alive", "end"?}.
  /// DELETE /api/v1/agent/workers/{id}: stops it; {"id", "end"}. An unknown id is 404.
  void addRoutes(http::Router& router);

 private:
  struct Worker;

  http::Response start(const http::Request& request);
  http::Response describe(const http::Request& request);
  /// Where the coordinator reaches this agent's workers: the bind address, or, bound to a
  /// wildcard, the address `request` came in on.
  [[nodiscard]] std::string addressFor(const http::Request& request) const;
  http::Response stop(const std::string& id);
  /// The worker `id`, or null; `forget` takes it off the list too.
  std::shared_ptr<Worker> take(const std::string& id, bool forget);

  Options options_;
  std::mutex mutex_;
  std::uint64_t next_id_ = 1;                               // guarded by mutex_
  std::map<std::string, std::shared_ptr<Worker>> workers_;  // guarded by mutex_
};

}  // namespace benchd::agent
