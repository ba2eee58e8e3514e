#include "run_command.hpp"

#include "run_options.hpp"
#include "run_progress.hpp"
#include "stop_on_signal.hpp"
#include "usage_error.hpp"
#include "workload_source.hpp"

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/host_limits.hpp>
#include <benchd/results/winners.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/workload_catalog.hpp>
#include <benchd/store/result_store.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>

namespace benchd::cli {
namespace {

constexpr int kStoppedExitCode = 130;

/// A bare name is looked up in the scenarios folder (".csv" may be left off); anything with a
/// '/' is a path used as is.
std::filesystem::path scenarioFilePath(const std::string& name,
                                       const std::filesystem::path& scenarios_dir) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  std::filesystem::path path = scenarios_dir / name;
  if (!std::filesystem::exists(path) && path.extension() != ".csv") {
    path += ".csv";
  }
  if (!std::filesystem::exists(path)) {
    std::string known;
    std::error_code ignored;
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(scenarios_dir, ignored)) {
      if (entry.path().extension() == ".csv") {
        names.push_back(entry.path().filename().string());
      }
    }
    std::sort(names.begin(), names.end());
    for (const std::string& file : names) {
      known += (known.empty() ? "" : ", ") + file;
    }
    throw std::runtime_error("no scenario file '" + name + "' in " + scenarios_dir.string() +
                             " (there: " + (known.empty() ? "none" : known) +
                             "); give a path to use a file elsewhere");
  }
  return path;
}

std::string settingsNote(const RunOptions& options, const runner::RunPlan& plan,
                         unsigned generator_threads) {
  std::string note = "Approaches:";
  for (const std::string& approach : plan.approaches) {
    note += " " + approach;
  }
  note += ". ";
  if (options.warmup_seconds || options.test_seconds) {
    note += "Overrides:";
    if (options.warmup_seconds) {
      note += " warm-up " + std::to_string(*options.warmup_seconds) + " s";
    }
    if (options.test_seconds) {
      note += " test " + std::to_string(*options.test_seconds) + " s";
    }
    note += " for every row (the table shows the durations used). ";
  }
  note += "Server CPUs: " + runner::formatCpuList(options.server_cpus) +
          "; load generator CPUs: " + runner::formatCpuList(options.generator_cpus) + " (" +
          std::to_string(generator_threads) + (generator_threads == 1 ? " thread" : " threads") +
          ").";
  return note;
}

void printStandings(std::ostream& out, const std::vector<results::SummaryRow>& rows,
                    const std::vector<std::string>& approaches) {
  if (rows.empty()) {
    return;
  }
  const results::WinnersGrid grid =
      results::computeWinners(results::toResultsTable(rows), approaches);
  out << "winners over " << grid.contests << " contests:\n";
  for (const results::ApproachStanding& standing : grid.standings) {
    out << "  (" << standing.rank << ") " << standing.approach << ": " << standing.wins << " wins, "
        << standing.percent << " %\n";
  }
  out << "  no winner: " << grid.draws << ", " << grid.draw_percent << " %\n";
}

int runBenchmarks(std::span<const std::string_view> arguments) {
  const RunOptions options = parseRunOptions(arguments);
  if (const std::string problem =
          runner::findCpuSetProblem(options.server_cpus, options.generator_cpus);
      !problem.empty()) {
    throw UsageError(problem);
  }
  const std::filesystem::path scenarios_dir = scenariosDirectory(options.scenarios_dir);
  const std::filesystem::path scenario_file =
      scenarioFilePath(options.scenario_file, scenarios_dir);
  const scenario::WorkloadCatalog workloads =
      scenario::WorkloadCatalog::loadDirectory(scenarios_dir / "workloads");
  const std::vector<scenario::ScenarioRow> rows =
      scenario::loadScenarioFile(scenario_file, workloads);

  std::vector<std::filesystem::path> plugin_dirs(options.plugin_dirs.begin(),
                                                 options.plugin_dirs.end());
  const std::filesystem::path worker = runner::workerPath();
  const runner::PluginCatalog catalog =
      runner::inspectPlugins(runner::pluginFolders(plugin_dirs), worker);
  const std::vector<runner::PluginDescription> chosen =
      runner::resolveApproaches(catalog, options.approaches);
  std::vector<std::string> approach_names;
  std::vector<runner::Approach> approaches;
  for (const runner::PluginDescription& plugin : chosen) {
    approach_names.push_back(plugin.name);
    approaches.push_back({plugin.name, plugin.path});
  }

  loadgen::raiseOpenFileLimit();
  const runner::RunPlan plan =
      runner::planRun(rows, workloads, approach_names,
                      {options.warmup_seconds, options.test_seconds}, loadgen::readHostLimits());
  const unsigned generator_threads = options.threads.value_or(
      options.generator_cpus.empty()
          ? loadgen::defaultLoadThreads()
          : static_cast<unsigned>(std::max<std::size_t>(1, options.generator_cpus.size())));
  if (options.plan_only) {
    runner::printPlan(std::cout, plan, scenario_file.string());
    for (const runner::RejectedPlugin& rejected : catalog.rejected) {
      std::cout << "rejected plugin " << rejected.path.string() << ": " << rejected.reason << "\n";
    }
    return 0;
  }

  const std::filesystem::path output_dir(options.output_dir);
  store::ResultStore store(options.store_file ? std::filesystem::path(*options.store_file)
                                              : output_dir / "benchd.sqlite");
  runner::RunSettings settings;
  settings.scenario_file = scenario_file;
  settings.scenario_set = scenario_file.stem().string();
  settings.plan = plan;
  settings.approaches = approaches;
  settings.worker = worker;
  settings.server_cpus = options.server_cpus;
  settings.generator_cpus = options.generator_cpus;
  settings.generator_threads = generator_threads;
  settings.results_dir = output_dir / settings.scenario_set;
  settings.keep_csv = options.keep_csv;
  settings.health_timeout = std::chrono::seconds(options.health_timeout_seconds);
  settings.options_text = settingsNote(options, plan, generator_threads);

  std::cerr << "benchd run: " << scenario_file.string() << ": " << plan.rows.size() << " rows x "
            << approaches.size() << " approaches, about " << runner::formatDuration(plan.total)
            << "; results in " << settings.results_dir.string() << "\n";
  RunProgress progress(std::cerr, ::isatty(STDERR_FILENO) == 1, options.quiet);
  runner::BenchmarkRun run(settings, store, progress);
  const StopOnSignal stop_on_signal([&run] { run.requestStop(); });
  const runner::RunReport report = run.execute();
  progress.finish();

  printStandings(std::cout, report.rows, approach_names);
  std::cout << (report.outcome == runner::RunOutcome::kStopped ? "stopped" : "completed")
            << " after " << runner::formatDuration(report.elapsed) << ": " << report.rows.size()
            << " results in " << settings.results_dir.string() << " (results.csv, results.md); run "
            << report.run_id << " in " << store.file().string() << "\n";
  return report.outcome == runner::RunOutcome::kStopped ? kStoppedExitCode : 0;
}

}  // namespace

Subcommand runSubcommand() {
  return {"run", "run a scenario file against every approach and rank them", runUsage(),
          runBenchmarks};
}

}  // namespace benchd::cli
