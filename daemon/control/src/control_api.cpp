#include "api_support.hpp"
#include "prometheus_text.hpp"

#include <benchd/control/control_api.hpp>
#include <benchd/control/daemon_log.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/plugin.h>
#include <benchd/runner/plugin_catalog_json.hpp>
#include <benchd/sampling/system_specs.hpp>

#include <rapidjson/rapidjson.h>

namespace benchd::control {
namespace {

/// The libraries benchd was built with, as the system specs name them, plus RapidJSON.
std::vector<std::pair<std::string, std::string>> libraryVersions(
    const std::filesystem::path& results_dir) {
  const sampling::SystemSpecs specs = sampling::collectSystemSpecs(results_dir);
  std::vector<std::pair<std::string, std::string>> libraries;
  for (const char* label : {"Compiler", "Boost", "Poco", "SQLite"}) {
    libraries.emplace_back(label, specs.valueOf(label));
  }
  libraries.emplace_back("RapidJSON", RAPIDJSON_VERSION_STRING);
  return libraries;
}

}  // namespace

ControlApi::ControlApi(RunQueue& queue, store::ResultStore& store,
                       runner::RunEnvironment environment, std::string version)
    : queue_(queue),
      store_(store),
      environment_(std::move(environment)),
      version_(std::move(version)),
      libraries_(libraryVersions(environment_.output_dir)),
      scenarios_(environment_.scenarios_dir, environment_.uploaded_scenarios_dir) {
  rescan();
}

void ControlApi::rescan() {
  runner::PluginCatalog fresh =
      runner::inspectPlugins(environment_.plugin_folders, environment_.worker);
  logLine(LogLevel::kInfo, "plugins inspected: " + std::to_string(fresh.accepted.size()) +
                               " accepted, " + std::to_string(fresh.rejected.size()) + " rejected");
  for (const runner::RejectedPlugin& plugin : fresh.rejected) {
    logLine(LogLevel::kWarning, "plugin " + plugin.path.string() + " rejected: " + plugin.reason);
  }
  const std::scoped_lock lock(catalog_mutex_);
  catalog_ = std::move(fresh);
}

runner::PluginCatalog ControlApi::catalog() const {
  const std::scoped_lock lock(catalog_mutex_);
  return catalog_;
}

http::Router ControlApi::router() {
  http::Router router;
  addSystemRoutes(router);
  addScenarioFileRoutes(router);
  addRunRoutes(router);
  addEventRoute(router);
  addResultRoutes(router);
  return router;
}

void ControlApi::addSystemRoutes(http::Router& router) {
  router.add("GET", "/api/v1/health",
             [](const http::Request&) { return http::Response::json(200, R"({"status":"UP"})"); },
             {.is_public = true});

  router.add("GET", "/api/v1/version", [this](const http::Request&) {
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    json.StartObject();
    field(json, "benchd", version_);
    field(json, "pluginAbi",
          std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR));
    key(json, "libraries");
    json.StartObject();
    for (const auto& [name, version] : libraries_) {
      field(json, name, version);
    }
    json.EndObject();
    json.EndObject();
    return jsonResponse(200, buffer);
  });

  const auto approaches = [this](const http::Request&) {
    return http::Response::json(200,
                                runner::pluginCatalogJson(catalog(), runner::JsonLayout::kCompact));
  };
  router.add("GET", "/api/v1/approaches", approaches);
  router.add("POST", "/api/v1/approaches/rescan", [this, approaches](const http::Request& r) {
    try {
      rescan();
    } catch (const std::exception& error) {
      // E.g. a configured plugin folder was removed: the daemon's setup, not the request.
      logLine(LogLevel::kError, std::string("plugin rescan failed: ") + error.what());
      return http::Problem(500,
                           std::string("the plugin folders cannot be searched: ") + error.what())
          .toResponse();
    }
    return approaches(r);
  });

  router.add("GET", "/metrics", [this](const http::Request&) {
    DaemonMetrics metrics;
    metrics.version = version_;
    metrics.queue_length = queue_.queueLength();
    for (const store::RunStatus status :
         {store::RunStatus::kQueued, store::RunStatus::kRunning, store::RunStatus::kCompleted,
          store::RunStatus::kStopped, store::RunStatus::kFailed, store::RunStatus::kInterrupted}) {
      metrics.runs_by_status.emplace_back(store::runStatusName(status), store_.countRuns(status));
    }
    metrics.live = queue_.live();
    return http::Response::text(200, prometheusText(metrics), kPrometheusContentType);
  });
}

}  // namespace benchd::control
