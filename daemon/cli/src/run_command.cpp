#include "run_command.hpp"

#include "run_options.hpp"
#include "run_progress.hpp"
#include "stop_on_signal.hpp"
#include "workload_source.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/common/usage_error.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/standings_text.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/runner/run_resumption.hpp>
#include <benchd/store/result_store.hpp>

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace benchd::cli {
namespace {

constexpr int kStoppedExitCode = 130;
/// The run completed, but some of its results failed (a worker that would not start, died or
/// answered wrongly, a database that stopped answering, a row the host refused).
constexpr int kSomeResultsFailedExitCode = 3;

void printStandings(std::ostream& out, const std::vector<results::SummaryRow>& rows,
                    const runner::RunSettings& settings) {
  if (!rows.empty()) {
    results::writeStandingsText(
        out, results::decideRunWinners(rows, settings.plan.approaches, settings.winner_rule,
                                       settings.noise_thresholds));
  }
}

/// A request the runner refused, in `benchd run`'s words: a bad option value is a usage error
/// named by its option; a scenario file that is not there is an error (exit 1) with the
/// command line's remedy.
[[noreturn]] void rethrowInCommandLineTerms(const runner::RunRequestError& error) {
  const std::string reason = error.what();
  switch (error.field()) {
    case runner::RunRequestField::kScenarioFile:
      throw std::runtime_error(reason + "; give a path to use a file elsewhere");
    case runner::RunRequestField::kWarmup:
      throw common::UsageError("-w: " + reason);
    case runner::RunRequestField::kTest:
      throw common::UsageError("-t: " + reason);
    case runner::RunRequestField::kServerCpus:
      throw common::UsageError("--server-cpus: " + reason);
    case runner::RunRequestField::kGeneratorCpus:
      throw common::UsageError("--generator-cpus: " + reason);
    case runner::RunRequestField::kRepeats:
      throw common::UsageError("--repeat: " + reason);
    case runner::RunRequestField::kWinnerRule:
      throw common::UsageError("--winners: " + reason);
    case runner::RunRequestField::kAa:
      throw common::UsageError("--aa: " + reason + " (leave out -a)");
    case runner::RunRequestField::kCpus:
      throw common::UsageError("--cpus: " + reason);
    case runner::RunRequestField::kMemoryCap:
      throw std::runtime_error("--memory-cap: " + reason);
    case runner::RunRequestField::kCapacityResolution:
      throw common::UsageError("--capacity-resolution: " + reason);
  }
  throw std::runtime_error(reason);  // only for a value outside the enumeration
}

runner::RunRequest requestOf(const RunOptions& options) {
  runner::RunRequest request;
  request.scenario_file = options.scenario_file;
  request.approaches = options.approaches;
  request.aa_approach = options.aa_approach;
  request.repeats = options.repeats;
  request.memory_cap_bytes = options.memory_cap_bytes;
  request.capacity_resolution_percent = options.capacity_resolution_percent;
  request.order_seed = options.order_seed;
  request.winner_rule = options.winner_rule;
  request.overrides = {options.warmup_seconds, options.test_seconds};
  request.keep_csv = options.keep_csv;
  request.cpus = options.cpus;
  request.server_cpus = options.server_cpus;
  request.generator_cpus = options.generator_cpus;
  request.generator_threads = options.threads;
  request.health_timeout = std::chrono::seconds(options.health_timeout_seconds);
  if (options.thresholds_file) {
    request.noise_thresholds = results::readNoiseThresholdsFile(*options.thresholds_file);
  }
  return request;
}

runner::RunEnvironment environmentOf(const RunOptions& options) {
  runner::RunEnvironment environment;
  environment.scenarios_dir = scenariosDirectory(options.scenarios_dir);
  environment.plugin_folders = runner::pluginFolders(
      std::vector<std::filesystem::path>(options.plugin_dirs.begin(), options.plugin_dirs.end()));
  environment.worker = runner::workerPath();
  environment.report_tool = runner::reportPath();
  environment.output_dir = options.output_dir;
  environment.database.url = options.postgres_url;
  environment.database.pool_size = options.db_pool;
  return environment;
}

/// `prepare()` (prepareRun or prepareResumption), its refusals in command-line terms.
template <typename Prepare>
runner::PreparedRun preparedInCommandLineTerms(const Prepare& prepare) {
  try {
    return prepare();
  } catch (const runner::RunRequestError& error) {
    rethrowInCommandLineTerms(error);
  } catch (const runner::UnknownApproachError& error) {
    // Where a user of the command line sees more, and how they add plugins.
    throw runner::UnknownApproachError(
        std::string(error.what()) + (error.noneAccepted()
                                         ? " ('benchd plugins' shows what was found and why it was "
                                           "rejected; add a folder with --plugin-dir or "
                                           "$BENCHD_PLUGIN_PATH)"
                                         : " ('benchd plugins' lists them)"),
        error.noneAccepted());
  }
}

std::filesystem::path storeFileOf(const RunOptions& options) {
  return options.store_file ? std::filesystem::path(*options.store_file)
                            : std::filesystem::path(options.output_dir) / "benchd.sqlite";
}

/// The results store of `options`, claimed for writing: runs left running by a process that
/// died are marked interrupted first (so they can be resumed), and the user is told.
std::unique_ptr<store::ResultStore> openStoreForWriting(const RunOptions& options) {
  auto store = std::make_unique<store::ResultStore>(storeFileOf(options));
  if (const std::size_t interrupted = store->claimWriter(common::epochMillisNow());
      interrupted > 0) {
    std::cerr << "benchd run: " << interrupted << " earlier run(s) in " << store->file().string()
              << " ended with their process before they finished; marked interrupted ("
              << "`benchd run --resume RUN` goes on with one)\n";
  }
  return store;
}

int runBenchmarks(std::span<const std::string_view> arguments) {
  const RunOptions options = parseRunOptions(arguments);
  const runner::RunEnvironment environment = environmentOf(options);
  // A resumption reads its run from the store, so the store comes first; a new run's store is
  // opened only once the request is known to be good (--plan writes nothing).
  std::unique_ptr<store::ResultStore> store;
  runner::PreparedRun prepared;
  if (options.resume_run) {
    // --plan only reads: it claims nothing (a run whose process died still reads as running).
    store = options.plan_only ? std::make_unique<store::ResultStore>(storeFileOf(options))
                              : openStoreForWriting(options);
    prepared = preparedInCommandLineTerms(
        [&] { return runner::prepareResumption(*store, *options.resume_run, environment); });
  } else {
    prepared = preparedInCommandLineTerms(
        [&] { return runner::prepareRun(requestOf(options), environment); });
  }
  const runner::RunSettings& settings = prepared.settings;
  const std::size_t missing = runner::missingRuns(settings);
  const std::string resuming = options.resume_run
                                   ? "resuming run " + std::to_string(*options.resume_run) + " (" +
                                         std::to_string(missing) + " of its runs missing): "
                                   : "";
  if (options.plan_only) {
    if (options.resume_run) {
      std::cout << resuming << "the runs it has are kept; the plan below is the whole run's\n";
    }
    runner::printPlan(std::cout, settings.plan, settings.scenario_file.string());
    std::cout << settings.options_text << "\n";
    for (const runner::RejectedPlugin& rejected : prepared.catalog.rejected) {
      std::cout << "rejected plugin " << rejected.path.string() << ": " << rejected.reason << "\n";
    }
    return 0;
  }

  if (!store) {
    store = openStoreForWriting(options);
  }
  std::cerr << "benchd run: " << resuming << settings.scenario_file.string() << ": "
            << settings.plan.rows.size() << " rows x " << settings.approaches.size()
            << " approaches"
            << (settings.repeats > 1 ? " x " + std::to_string(settings.repeats) + " repeats" : "")
            << ", about " << runner::formatDuration(settings.plan.total)
            << (options.resume_run ? " in all" : "") << "; results in "
            << settings.results_dir.string() << "\n";
  RunProgress progress(std::cerr, ::isatty(STDERR_FILENO) == 1, options.quiet);
  runner::BenchmarkRun run(
      settings,
      options.resume_run
          ? runner::RunLedger::resume(*store, *options.resume_run, store::RunStatus::kRunning)
          : runner::RunLedger::record(*store, settings, store::RunStatus::kRunning),
      progress);
  const StopOnSignal stop_on_signal([&run] { run.requestStop(); });
  const runner::RunReport report = run.execute();
  progress.finish();

  printStandings(std::cout, report.rows, settings);
  const auto failed = static_cast<std::size_t>(
      std::count_if(report.rows.begin(), report.rows.end(),
                    [](const results::SummaryRow& row) { return row.failed; }));
  const bool stopped = report.outcome == runner::RunOutcome::kStopped;
  std::cout << (stopped ? "stopped" : "completed") << " after "
            << runner::formatDuration(report.elapsed) << ": " << report.rows.size() << " results"
            << (failed > 0 ? " (" + std::to_string(failed) + " failed: results.md says why)" : "")
            << " in " << settings.results_dir.string() << " (results.csv, results.md); run "
            << report.run_id << " in " << store->file().string() << "\n";
  if (stopped) {
    std::cout << "go on with it: benchd run --resume " << report.run_id
              << (options.store_file ? " --store " + store->file().string()
                                     : " -o " + options.output_dir)
              << "\n";
    return kStoppedExitCode;
  }
  return failed > 0 ? kSomeResultsFailedExitCode : 0;
}

}  // namespace

Subcommand runSubcommand() {
  return {"run", "run a scenario file against every approach and rank them", runUsage(),
          runBenchmarks};
}

}  // namespace benchd::cli
