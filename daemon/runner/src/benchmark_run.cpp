#include "capacity_row_run.hpp"
#include "chart_rendering.hpp"
#include "cpu_affinity.hpp"
#include "results_folder.hpp"
#include "row_run.hpp"
#include "run_certificate.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/round_order.hpp>
#include <benchd/sampling/system_specs.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace benchd::runner {
namespace {

loadgen::EngineOptions engineOptionsFor(const RunSettings& settings) {
  loadgen::EngineOptions options;
  options.threads = settings.generator_threads;
  return options;
}

}  // namespace

std::string_view runStepName(RunStep step) {
  switch (step) {
    case RunStep::kStarting:
      return "starting";
    case RunStep::kVerifying:
      return "verifying";
    case RunStep::kWarmup:
      return "warm-up";
    case RunStep::kTest:
      return "test";
    case RunStep::kStopping:
      return "stopping";
  }
  return "unknown";
}

/// Where the run is, for progress reports.
struct BenchmarkRun::Context {
  store::RunId run_id = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::chrono::seconds planned_done{0};  ///< plan time of the (row, approach)s already done
  std::chrono::steady_clock::time_point current_started = started;
  std::chrono::seconds current_planned{0};
  Progress progress;

  Progress at(RunStep step, double phase_elapsed = 0.0, double phase_seconds = 0.0) {
    Progress report = progress;
    report.step = step;
    report.phase_elapsed_seconds = phase_elapsed;
    report.phase_seconds = phase_seconds;
    const auto now = std::chrono::steady_clock::now();
    report.run_elapsed_seconds = std::chrono::duration<double>(now - started).count();
    const double current_spent =
        std::min(std::chrono::duration<double>(now - current_started).count(),
                 static_cast<double>(current_planned.count()));
    report.run_remaining_seconds =
        std::max(0.0, static_cast<double>(total.count() - planned_done.count()) - current_spent);
    return report;
  }

  std::chrono::seconds total{0};
};

BenchmarkRun::BenchmarkRun(RunSettings settings, RunLedger ledger, RunObserver& observer)
    : settings_(std::move(settings)),
      ledger_(std::move(ledger)),
      store_(ledger_.store()),
      observer_(observer),
      engine_(engineOptionsFor(settings_)) {
  // The store says running from now (the daemon makes the run when it leaves the queue);
  // execute() records the start time and the host's specs again when it starts.
  ledger_.start(
      settings_.resumed ? settings_.resumed->started_epoch_millis : common::epochMillisNow(), {});
}

BenchmarkRun::~BenchmarkRun() = default;

void BenchmarkRun::requestStop() noexcept {
  stop_requested_.store(true);
  engine_.requestStop();
}

RunReport BenchmarkRun::execute() {
  Context context;
  try {
    return executeRecorded(context);
  } catch (const std::exception& error) {
    try {
      ledger_.finish(store::RunStatus::kFailed, error.what());
    } catch (const std::exception&) {
      // The store fails too; the first error is the one to report.
    }
    throw;
  }
}

RunReport BenchmarkRun::executeRecorded(Context& context) {
  // The engine's threads are created by this thread during each phase and inherit its
  // affinity; the worker gets the server CPUs in its child before exec.
  const ScopedThreadAffinity generator_affinity(settings_.generator_cpus);

  // A resumed run keeps its first start: results.md's test time spans every part of it.
  const std::int64_t started_millis =
      settings_.resumed ? settings_.resumed->started_epoch_millis : common::epochMillisNow();
  const sampling::SystemSpecs specs = sampling::collectSystemSpecs(settings_.results_dir);
  store::NewRun new_run = runRecordOf(settings_, started_millis);
  for (const sampling::SpecEntry& entry : specs.entries) {
    new_run.system_specs.emplace_back(entry.label, entry.value);
  }
  context.total = settings_.plan.total;
  context.run_id = ledger_.id();
  ledger_.start(started_millis, new_run.system_specs);

  RunReport report;
  report.run_id = context.run_id;
  std::optional<ResultsFolder> folder;
  try {
    folder.emplace(settings_.results_dir, settings_.keep_csv, new_run, plannedRows(settings_.plan),
                   notRunApproaches(settings_.plan));
    runAll(context, *folder, report);
  } catch (const std::exception& error) {
    ledger_.finish(store::RunStatus::kFailed, error.what());
    if (folder) {
      try {
        folder->finish(report.rows, specs.entries, started_millis, common::epochMillisNow(), true);
      } catch (const std::exception&) {
        // The first error is the one to report (probably the folder failing in both cases).
      }
    }
    throw;
  }
  database_.reset();  // stops a private cluster now, not when the run object goes
  certificate_.reset();
  report.outcome = stop_requested_.load() ? RunOutcome::kStopped : RunOutcome::kCompleted;
  const bool stopped = report.outcome == RunOutcome::kStopped;
  if (!report.rows.empty()) {
    // Before results.md, which embeds the images that exist when it is written.
    observer_.onNotice(renderCharts(settings_.report_tool, store_.file(), context.run_id,
                                    settings_.results_dir, report.rows.size()));
  }
  folder->finish(report.rows, specs.entries, started_millis, common::epochMillisNow(), stopped);
  if (settings_.aa_check && settings_.plan.approaches.size() == 2 && !report.rows.empty()) {
    const std::string& a = settings_.plan.approaches[0];
    const std::string& b = settings_.plan.approaches[1];
    folder->writeMeasuredNoiseThresholds(results::measureNoiseThresholds(
        results::toResultsTable(report.rows, results::ValueSpelling::kExact), a, b,
        settings_.noise_thresholds,
        "measured by the A/A run " + std::to_string(context.run_id) + " (" + a + " against " + b +
            ", " + std::to_string(settings_.repeats) + " rounds of " +
            settings_.scenario_file.filename().string() + ")"));
    observer_.onNotice("noise thresholds this A/A run measured: " +
                       (settings_.results_dir / "measured-noise-thresholds.csv").string() +
                       " (decide with them: --thresholds FILE)");
  }
  // Last: a results folder that cannot be written fails the run (execute()'s end), so the
  // record says completed only when everything is.
  ledger_.finish(stopped ? store::RunStatus::kStopped : store::RunStatus::kCompleted,
                 stopped ? "stopped on request" : "");
  report.elapsed = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::steady_clock::now() - context.started);
  return report;
}

void BenchmarkRun::runAll(Context& context, ResultsFolder& folder, RunReport& report) {
  context.progress.row_count = settings_.plan.rows.size();
  context.progress.approach_count = settings_.approaches.size();
  const std::uint32_t repeats = std::max<std::uint32_t>(1, settings_.repeats);
  context.progress.repeats = repeats;
  const RowRunContext row_context{settings_,
                                  store_,
                                  engine_,
                                  stop_requested_,
                                  observer_,
                                  [&context](RunStep step, double elapsed, double planned) {
                                    return context.at(step, elapsed, planned);
                                  },
                                  database_,
                                  certificate_};
  // A resumed run's results so far: kept as they are, and their runs not run again.
  std::set<std::tuple<std::string, std::string, std::uint32_t>> finished;
  if (settings_.resumed) {
    for (const results::SummaryRow& earlier : settings_.resumed->earlier_results) {
      finished.emplace(earlier.scenario, earlier.approach, earlier.round);
      std::vector<results::SecondRecord> test_seconds;
      if (settings_.keep_csv && earlier.round == 1) {
        if (const auto id =
                store_.findResult(context.run_id, earlier.scenario, earlier.approach, 1)) {
          test_seconds = store_.seconds(*id, measurement::PhaseKind::kTest);
        }
      }
      folder.addResult(earlier, test_seconds);
      report.rows.push_back(earlier);
    }
  }
  for (std::size_t row_index = 0; row_index < settings_.plan.rows.size(); ++row_index) {
    const RowPlan& row_plan = settings_.plan.rows[row_index];
    for (std::uint32_t round = 1; round <= repeats; ++round) {
      // One run per approach keeps the order asked for; rounds are shuffled, each its own way.
      const std::vector<std::size_t> order =
          repeats == 1
              ? roundOrder(0, 0, 0, 0)
              : roundOrder(settings_.approaches.size(), settings_.order_seed, row_index, round);
      for (std::size_t position = 0; position < settings_.approaches.size(); ++position) {
        if (stop_requested_.load()) {
          return;
        }
        const std::size_t approach_index = order.empty() ? position : order[position];
        const Approach& approach = settings_.approaches[approach_index];
        if (const std::string* skipped = row_plan.skipReason(approach.name)) {
          if (round == 1) {
            observer_.onNotice("skipped in " + row_plan.row.name + ": " + *skipped);
          }
          continue;  // its time is not in the plan's total
        }
        if (finished.contains({row_plan.row.name, approach.name, round})) {
          context.planned_done += row_plan.seconds_per_approach;
          continue;
        }
        context.progress.row_number = row_index + 1;
        context.progress.approach_number = position + 1;
        context.progress.round = round;
        context.progress.scenario = row_plan.row.name;
        context.progress.approach = approach.name;
        context.current_started = std::chrono::steady_clock::now();
        context.current_planned = row_plan.seconds_per_approach;
        const auto round_position = static_cast<std::uint32_t>(position + 1);
        const store::ResultId result_id = store_.beginResult(
            context.run_id, row_index, row_plan.row.name, approach.name, round, round_position);
        RowRun row_run(row_context, row_plan, approach, result_id);
        std::optional<CapacityRowRun> capacity_run;
        if (row_plan.row.capacity_goal) {
          capacity_run.emplace(row_run, row_context, row_plan, approach, result_id,
                               warmStartRate(report.rows, row_plan.row.name, approach.name));
        }
        std::optional<results::SummaryRow> summary =
            capacity_run ? capacity_run->run() : row_run.run();
        context.planned_done += row_plan.seconds_per_approach;
        if (!summary) {
          return;  // stopped mid-way: the partial result is not a result
        }
        summary->round = round;
        summary->round_position = round_position;
        store_.finishResult(result_id, *summary);
        folder.addResult(*summary,
                         capacity_run ? capacity_run->testSeconds() : row_run.testSeconds());
        report.rows.push_back(*summary);
        observer_.onResult(context.at(RunStep::kStopping), *summary);
      }
    }
  }
}

}  // namespace benchd::runner
