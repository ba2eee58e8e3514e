#include "answer_check.hpp"
#include "chart_rendering.hpp"
#include "cpu_affinity.hpp"
#include "results_folder.hpp"
#include "worker_supervisor.hpp"

#include <benchd/common/epoch_time.hpp>
#include <benchd/loadgen/host_limits.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/results/summary_metrics.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/round_order.hpp>
#include <benchd/sampling/host_sampler.hpp>
#include <benchd/sampling/process_sampler.hpp>
#include <benchd/sampling/process_tree_sampler.hpp>
#include <benchd/sampling/system_specs.hpp>

#include <unistd.h>

#include <algorithm>

namespace benchd::runner {
namespace {

loadgen::EngineOptions engineOptionsFor(const RunSettings& settings) {
  loadgen::EngineOptions options;
  options.threads = settings.generator_threads;
  return options;
}

std::string quotedList(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    text += (text.empty() ? "'" : ", '") + name + "'";
  }
  return text;
}

std::string implementedProfiles() {
  std::string text;
  for (const std::string_view profile : microservice::kImplementedProfiles) {
    text += (text.empty() ? "" : ", ") + std::string(profile);
  }
  return text;
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

store::NewRun runRecordOf(const RunSettings& settings, std::int64_t started_epoch_millis) {
  store::NewRun record;
  record.scenario_file = settings.scenario_file.string();
  record.scenario_set = settings.scenario_set;
  record.approaches = settings.plan.approaches;
  record.options_text = settings.options_text;
  record.results_dir = settings.results_dir.string();
  record.started_epoch_millis = started_epoch_millis;
  record.repeats = settings.repeats;
  record.order_seed = settings.order_seed;
  record.winner_rule = settings.winner_rule;
  return record;
}

std::vector<scenario::ScenarioRow> plannedRows(const RunPlan& plan) {
  std::vector<scenario::ScenarioRow> rows;
  for (const RowPlan& row_plan : plan.rows) {
    rows.push_back(row_plan.row);
  }
  return rows;
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

BenchmarkRun::BenchmarkRun(RunSettings settings, store::ResultStore& store, RunObserver& observer)
    : settings_(std::move(settings)),
      store_(store),
      observer_(observer),
      engine_(engineOptionsFor(settings_)) {}

BenchmarkRun::~BenchmarkRun() = default;

void BenchmarkRun::requestStop() noexcept {
  stop_requested_.store(true);
  engine_.requestStop();
}

RunReport BenchmarkRun::execute() {
  // The engine's threads are created by this thread during each phase and inherit its
  // affinity; the worker gets the server CPUs in its child before exec.
  const ScopedThreadAffinity generator_affinity(settings_.generator_cpus);

  const std::int64_t started_millis = common::epochMillisNow();
  const sampling::SystemSpecs specs = sampling::collectSystemSpecs(settings_.results_dir);
  store::NewRun new_run = runRecordOf(settings_, started_millis);
  for (const sampling::SpecEntry& entry : specs.entries) {
    new_run.system_specs.emplace_back(entry.label, entry.value);
  }
  const std::vector<scenario::ScenarioRow> rows = plannedRows(settings_.plan);
  Context context;
  context.total = settings_.plan.total;
  if (settings_.queued_run) {
    context.run_id = *settings_.queued_run;
    store_.startRun(context.run_id, started_millis, new_run.system_specs);
  } else {
    context.run_id = store_.createRun(new_run);
    store_.addScenarioRows(context.run_id, rows);
  }

  RunReport report;
  report.run_id = context.run_id;
  std::optional<ResultsFolder> folder;
  try {
    folder.emplace(settings_.results_dir, settings_.keep_csv, new_run, rows);
    runAll(context, *folder, report);
  } catch (const std::exception& error) {
    store_.finishRun(context.run_id, store::RunStatus::kFailed, error.what(),
                     common::epochMillisNow());
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
  report.outcome = stop_requested_.load() ? RunOutcome::kStopped : RunOutcome::kCompleted;
  const bool stopped = report.outcome == RunOutcome::kStopped;
  const std::int64_t finished_millis = common::epochMillisNow();
  store_.finishRun(context.run_id,
                   stopped ? store::RunStatus::kStopped : store::RunStatus::kCompleted,
                   stopped ? "stopped on request" : "", finished_millis);
  if (!report.rows.empty()) {
    // Before results.md, which embeds the images that exist when it is written.
    observer_.onNotice(renderCharts(settings_.report_tool, store_.file(), context.run_id,
                                    settings_.results_dir, report.rows.size()));
  }
  folder->finish(report.rows, specs.entries, started_millis, finished_millis, stopped);
  report.elapsed = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::steady_clock::now() - context.started);
  return report;
}

void BenchmarkRun::runAll(Context& context, ResultsFolder& folder, RunReport& report) {
  context.progress.row_count = settings_.plan.rows.size();
  context.progress.approach_count = settings_.approaches.size();
  const std::uint32_t repeats = std::max<std::uint32_t>(1, settings_.repeats);
  context.progress.repeat_count = repeats;
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
        context.progress.row_number = row_index + 1;
        context.progress.approach_number = position + 1;
        context.progress.repeat_number = round;
        context.progress.scenario = row_plan.row.name;
        context.progress.approach = approach.name;
        context.current_started = std::chrono::steady_clock::now();
        context.current_planned = row_plan.seconds_per_approach;
        const auto round_position = static_cast<std::uint32_t>(position + 1);
        const store::ResultId result_id = store_.beginResult(
            context.run_id, row_index, row_plan.row.name, approach.name, round, round_position);
        std::vector<results::SecondRecord> seconds;
        std::optional<results::SummaryRow> summary =
            runOne(context, row_plan, approach, result_id, seconds);
        context.planned_done += row_plan.seconds_per_approach;
        if (!summary) {
          return;  // stopped mid-way: the partial result is not a result
        }
        summary->repeat_number = round;
        summary->round_position = round_position;
        store_.finishResult(result_id, *summary);
        folder.addResult(*summary, seconds);
        report.rows.push_back(*summary);
        observer_.onResult(context.at(RunStep::kStopping), *summary);
      }
    }
  }
}

std::optional<results::SummaryRow> BenchmarkRun::runOne(
    Context& context, const RowPlan& row_plan, const Approach& approach, store::ResultId result_id,
    std::vector<results::SecondRecord>& test_seconds) {
  const scenario::ScenarioRow& row = row_plan.row;
  const auto failed = [&](const std::string& reason, std::uint64_t errors = 1) {
    return results::failedRow(row.name, approach.name, reason, errors);
  };
  observer_.onStep(context.at(RunStep::kStarting));
  if (!row_plan.unsupported_profiles.empty()) {
    return failed("server profile " + quotedList(row_plan.unsupported_profiles) +
                  " is implemented by no installed plugin nor the core (implemented: " +
                  implementedProfiles() + ")");
  }
  if (!row_plan.limits.problems.empty()) {
    std::string reason = "refused by the host's limits:";
    for (const std::string& problem : row_plan.limits.problems) {
      reason += " " + problem;
    }
    return failed(reason);
  }
  try {
    WorkerLaunch launch;
    launch.worker = settings_.worker;
    launch.plugin = approach.plugin;
    launch.profiles = row.server_profiles;
    launch.plugin_options = approach.plugin_options;
    if (row_plan.needs_database) {
      if (!settings_.plan.database_problem.empty()) {
        return failed("PostgreSQL not found: " + settings_.plan.database_problem);
      }
      if (!database_) {
        observer_.onNotice("starting PostgreSQL: " + describeDatabaseServer(settings_.database));
        database_ = std::make_unique<DatabaseServer>(settings_.database);
      }
      try {
        launch.postgres = database_->prepareRow();
      } catch (const std::runtime_error& error) {
        return failed(error.what());
      }
      launch.db_pool = settings_.database.pool_size;
    }
    launch.cpus = settings_.server_cpus;
    launch.stop_timeout = settings_.worker_stop_timeout;
    WorkerSupervisor worker(launch);
    const auto not_ready =
        worker.waitReady(settings_.health_timeout, [this] { return stop_requested_.load(); });
    if (stop_requested_.load()) {
      return std::nullopt;
    }
    if (not_ready) {
      return failed(*not_ready);
    }
    observer_.onStep(context.at(RunStep::kVerifying));
    if (const auto wrong =
            findWrongAnswer(worker.port(), approach.routeName(), row, row_plan.workload)) {
      // A worker that crashed on the request resets the connection a moment before the kernel
      // reports its exit; give it that moment, so the reason names the crash.
      constexpr std::chrono::milliseconds kCrashGrace{2'000};
      return failed(worker.exitsWithin(kCrashGrace)
                        ? *wrong + "; the worker " + worker.describeEnd()
                        : *wrong);
    }

    loadgen::RequestTarget target;  // the row's delays are runScenario's to set
    target.port = worker.port();
    target.approach = approach.routeName();

    // The samplers of the current phase, primed just before the engine sets the phase up
    // (connects), so the first sample covers that setup and the first interval, and every later
    // one exactly its interval.
    struct PhaseSamplers {
      PhaseSamplers(pid_t worker_pid, pid_t database_pid)
          : worker(worker_pid), generator(::getpid()) {
        if (database_pid != 0) {
          database.emplace(database_pid);
        }
      }
      sampling::HostSampler host;
      sampling::ProcessSampler worker;
      sampling::ProcessSampler generator;
      /// A postgres row's private cluster: the postmaster and its processes.
      std::optional<sampling::ProcessTreeSampler> database;
    };
    const pid_t database_pid =
        row_plan.needs_database && database_ ? database_->serverPid() : pid_t{0};
    std::optional<PhaseSamplers> samplers;
    double phase_seconds = 0.0;
    const auto stepOf = [](measurement::PhaseKind kind) {
      return kind == measurement::PhaseKind::kWarmup ? RunStep::kWarmup : RunStep::kTest;
    };
    std::optional<measurement::PhaseKind> worker_died_in;
    loadgen::PhaseHooks hooks;
    hooks.before_phase = [&](measurement::PhaseKind kind, std::chrono::seconds duration) {
      phase_seconds = static_cast<double>(duration.count());
      observer_.onStep(context.at(stepOf(kind), 0.0, phase_seconds));
      samplers.emplace(worker.pid(), database_pid);  // the previous phase's go first
    };
    hooks.after_phase = [&](const measurement::PhaseResult& phase) {
      if (stop_requested_.load()) {
        return false;
      }
      if (!worker.alive()) {
        worker_died_in = phase.phase;
        return false;
      }
      return true;
    };
    const auto on_snapshot = [&](const measurement::LoadSnapshot& snapshot) {
      if (stop_requested_.load()) {
        // A stop that came between the check below and the engine's start of the row was
        // cleared by runScenario; asking again ends the phase within an interval.
        engine_.requestStop();
      }
      results::SecondRecord second;
      second.load = results::LoadSecond::of(snapshot);
      second.system.host = samplers->host.sample();
      second.system.epoch_millis = second.system.host.epoch_millis;
      second.system.worker = samplers->worker.sample();
      second.system.generator = samplers->generator.sample();
      if (samplers->database) {
        second.system.database = samplers->database->sample();
      }
      second.system.worker_stats = worker.latestStats();
      store_.addSecond(result_id, second);
      const double elapsed =
          static_cast<double>((snapshot.start + snapshot.duration).count()) / 1e6;
      observer_.onSecond(context.at(stepOf(snapshot.phase), elapsed, phase_seconds), second);
      if (snapshot.phase == measurement::PhaseKind::kTest) {
        test_seconds.push_back(std::move(second));
      }
    };
    if (stop_requested_.load()) {
      return std::nullopt;
    }
    const loadgen::ScenarioResult phases =
        engine_.runScenario(row, row_plan.workload, target, on_snapshot, hooks);
    if (stop_requested_.load()) {
      return std::nullopt;
    }
    if (worker_died_in) {
      const measurement::PhaseResult& phase =
          *worker_died_in == measurement::PhaseKind::kWarmup ? *phases.warmup : *phases.test;
      return failed("the worker " + worker.describeEnd() + " during the " +
                        std::string(measurement::phaseKindName(*worker_died_in)) + " phase",
                    std::max<std::uint64_t>(1, phase.totals.errors.total()));
    }
    const std::optional<measurement::PhaseResult>& test_result = phases.test;
    observer_.onStep(context.at(RunStep::kStopping));
    if (!test_result) {
      return failed("the row has no test phase");  // a loaded scenario row always has one
    }
    // A database that went away during the row explains its errors better than any answer.
    if (row_plan.needs_database && database_) {
      if (const std::optional<std::string> gone = database_->failure()) {
        return failed("PostgreSQL stopped answering during the row: " + *gone,
                      std::max<std::uint64_t>(1, test_result->totals.errors.total()));
      }
    }
    // Read-only rows change no state, so the answers must still be right after the load: an
    // approach that degrades into fast wrong answers under load fails here.
    if (microservice::ServiceProfile::fromNames(row.server_profiles).read_only) {
      if (const auto wrong =
              findWrongAnswer(worker.port(), approach.routeName(), row, row_plan.workload)) {
        return failed("after the test phase, " + *wrong,
                      std::max<std::uint64_t>(1, test_result->totals.errors.total()));
      }
    }
    const results::TestPhaseData data{*test_result, test_seconds, row_plan.workload.isOpenModel()};
    results::SummaryRow summary = results::computeSummary(row.name, approach.name, data);
    const common::ExitStatus stopped = worker.stop();
    if (!stopped.succeeded()) {
      // A worker that had to be killed, or cut requests off at stop, still produced valid
      // numbers; say so beside them rather than failing the row.
      summary.diagnostics.worker_stop = stopped.describe();
    }
    return summary;
  } catch (const std::exception& error) {
    return failed(error.what());
  }
}

}  // namespace benchd::runner
