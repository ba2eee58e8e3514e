#pragma once

#include <benchd/control/run_queue.hpp>
#include <benchd/control/scenario_library.hpp>
#include <benchd/http/router.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/store/result_store.hpp>

#include <cstddef>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace benchd::control {

/// The per-stream send queue bound (http::StreamOptions::max_queued_bytes) the server of this
/// API must have: room for a page of replayed events (Last-Event-ID) plus live ones.
inline constexpr std::size_t kEventStreamQueueBytes = std::size_t{1} << 20;

/// The REST control API: /api/v1 (health, version, approaches, scenario-files, runs, their
/// events and results, compare) and /metrics (Prometheus). The contract is api/openapi.yaml.
///
/// Thread-safety: the handlers run on the HTTP server's threads, concurrently. The catalog is
/// guarded here; RunQueue, ResultStore and ScenarioLibrary are thread-safe themselves. The
/// object must outlive the server that serves its router.
class ControlApi {
 public:
  /// `environment.uploaded_scenarios_dir` is where uploaded scenario files go;
  /// `environment.output_dir` holds the runs' folders.
  ControlApi(RunQueue& queue, store::ResultStore& store, runner::RunEnvironment environment,
             std::string version);

  /// The routes; `health` is public, every other route needs the token (a policy of the server).
  [[nodiscard]] http::Router router();

  /// Re-inspects the plugin folders (at start and on POST approaches/rescan).
  void rescan();
  /// The plugins as last inspected (a copy; thread-safe). The agent's server role starts its
  /// workers from it.
  [[nodiscard]] runner::PluginCatalog catalog() const;

 private:
  // The routes, by resource; each in its own source file.
  void addSystemRoutes(http::Router& router);        // health, version, approaches, /metrics
  void addScenarioFileRoutes(http::Router& router);  // scenario-files
  void addRunRoutes(http::Router& router);  // runs: create, list, get, stop, resume, delete
  // The run routes' handlers (run_routes.cpp); those of one run get the run {id} names, found.
  http::Response createRun(const http::Request& request);  // POST runs
  http::Response listRuns(const http::Request& request);   // GET runs
  http::Response getRun(const http::Request& request,
                        const store::RunRecord& record);  // GET runs/{id}
  http::Response deleteRun(const http::Request& request,
                           const store::RunRecord& record);  // DELETE runs/{id}
  http::Response stopRun(const http::Request& request,
                         const store::RunRecord& record);  // POST runs/{id}/stop
  http::Response resumeRun(const http::Request& request,
                           const store::RunRecord& record);  // POST runs/{id}/resume
  void addEventRoute(http::Router& router);                  // runs/{id}/events
  void addResultRoutes(http::Router& router);  // runs/{id}/results..., winners, compare

  RunQueue& queue_;
  store::ResultStore& store_;
  runner::RunEnvironment environment_;
  std::string version_;
  std::vector<std::pair<std::string, std::string>> libraries_;  ///< name, version; for /version
  ScenarioLibrary scenarios_;
  mutable std::mutex catalog_mutex_;
  runner::PluginCatalog catalog_;
};

}  // namespace benchd::control
