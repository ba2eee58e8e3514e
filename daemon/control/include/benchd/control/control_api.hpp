#pragma once

#include <benchd/control/run_queue.hpp>
#include <benchd/http/router.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/store/result_store.hpp>

#include <memory>
#include <mutex>
#include <string>

namespace benchd::control {

/// The REST control API under /api/v1, on the run queue and the store (first resources: health,
/// version, approaches, runs and their live events; see README "benchd serve").
///
/// Thread-safety: the handlers run on the HTTP server's threads, concurrently. The catalog is
/// guarded here; RunQueue and ResultStore are thread-safe themselves. The object must outlive
/// the server that serves its router.
class ControlApi {
 public:
  ControlApi(RunQueue& queue, store::ResultStore& store, runner::RunEnvironment environment,
             std::string version);

  /// The routes; `health` is public, every other route needs the token (a policy of the server).
  [[nodiscard]] http::Router router();

  /// Re-inspects the plugin folders (at start and on POST approaches/rescan).
  void rescan();

 private:
  [[nodiscard]] runner::PluginCatalog catalog() const;

  RunQueue& queue_;
  store::ResultStore& store_;
  runner::RunEnvironment environment_;
  std::string version_;
  mutable std::mutex catalog_mutex_;
  runner::PluginCatalog catalog_;
};

}  // namespace benchd::control
