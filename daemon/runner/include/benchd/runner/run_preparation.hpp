#pragma once

#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/runner/run_plan.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::runner {

/// What a user asks for: the arguments of `benchd run` (and, later, of the API's run creation).
struct RunRequest {
  std::string scenario_file = "scenarios-quick.csv";  ///< a bare name or a path
  std::vector<std::string> approaches;                ///< empty: every accepted plugin
  DurationOverrides overrides;
  bool keep_csv = false;
  std::vector<unsigned> server_cpus;     ///< empty: unpinned
  std::vector<unsigned> generator_cpus;  ///< empty: unpinned
  /// Load-generator threads; default: one per generator CPU when pinned, else cores - 1.
  std::optional<unsigned> generator_threads;
  std::chrono::seconds health_timeout{30};
};

/// Where a run's inputs and outputs are.
struct RunEnvironment {
  std::filesystem::path scenarios_dir;  ///< bare scenario names and workloads/
  /// The daemon's uploaded scenario files: bare names not found in scenarios_dir are looked up
  /// here (their workloads still come from scenarios_dir/workloads). Empty: none.
  std::filesystem::path uploaded_scenarios_dir;
  std::vector<PluginFolder> plugin_folders;
  std::filesystem::path worker;       ///< the benchd-worker executable
  std::filesystem::path report_tool;  ///< benchd-report; empty or missing: no PNG charts
  std::filesystem::path output_dir;   ///< results go to output_dir/<scenario file stem>/
};

/// A request that cannot run as asked. what() is one line for the user; field() names the
/// request field it is about ("scenarioFile", "approaches", "serverCpus", ...).
class RunRequestError : public std::invalid_argument {
 public:
  RunRequestError(std::string field, const std::string& reason);
  [[nodiscard]] const std::string& field() const noexcept { return field_; }

 private:
  std::string field_;
};

/// A checked request: ready for BenchmarkRun, with the catalog it chose from.
struct PreparedRun {
  RunSettings settings;
  PluginCatalog catalog;
};

/// The scenario file a request names: a path when it contains '/', else a file of
/// `scenarios_dir` or, failing that, of `uploaded_dir` when given (".csv" may be left off).
/// Throws RunRequestError naming the files there.
std::filesystem::path resolveScenarioFile(const std::string& name,
                                          const std::filesystem::path& scenarios_dir,
                                          const std::filesystem::path& uploaded_dir = {});

/// Checks a request and turns it into RunSettings: resolves and loads the scenario file
/// (scenario::ScenarioFileError for a bad file), inspects the plugins (PluginSearchError) and
/// resolves the approaches (UnknownApproachError), checks the CPU sets (RunRequestError), raises
/// the open-file limit and plans the run against this host's limits. Nothing runs. One path for
/// `benchd run` and the daemon. With `catalog`, the plugins are taken from it instead of being
/// inspected again (the daemon's catalog of its last scan: inspecting takes up to seconds per
/// plugin, and a run should use the approaches the API lists).
PreparedRun prepareRun(const RunRequest& request, const RunEnvironment& environment,
                       const PluginCatalog* catalog = nullptr);

}  // namespace benchd::runner
