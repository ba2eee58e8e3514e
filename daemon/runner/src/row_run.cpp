#include "row_run.hpp"

#include "answer_check.hpp"
#include "run_certificate.hpp"

#include <benchd/common/units.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/results/summary_metrics.hpp>
#include <benchd/runner/worker_supervisor.hpp>
#include <benchd/sampling/host_sampler.hpp>
#include <benchd/sampling/process_sampler.hpp>
#include <benchd/sampling/process_tree_sampler.hpp>

#include <unistd.h>

#include <algorithm>

namespace benchd::runner {
namespace {

RunStep stepOf(measurement::PhaseKind kind) {
  return kind == measurement::PhaseKind::kWarmup ? RunStep::kWarmup : RunStep::kTest;
}

/// A failure after (or during) `phase`: what the phase measured before it is kept, as counts
/// in the failed row and as the stored seconds, which the reason points to.
RowFailure failureAfter(std::string reason, const measurement::PhaseResult& phase) {
  if (phase.phase == measurement::PhaseKind::kTest && phase.snapshot_count > 0) {
    reason += " (" + std::to_string(phase.snapshot_count) +
              " s of the test phase measured before it are kept in its per-second series)";
  }
  return RowFailure{std::move(reason), std::max<std::uint64_t>(1, phase.totals.errors.total()),
                    phase.phase == measurement::PhaseKind::kTest ? phase.totals.requests_ok : 0};
}

/// The samplers of one phase, primed just before the engine sets the phase up (connects), so
/// the first sample covers that setup and the first interval, and every later one exactly its
/// interval.
struct PhaseSamplers {
  PhaseSamplers(pid_t worker_pid, pid_t database_pid) : worker(worker_pid), generator(::getpid()) {
    if (database_pid != 0) {
      database.emplace(database_pid);
    }
  }

  /// The samples of the interval that just ended.
  results::SystemSample sample(const WorkerSupervisor& supervisor) {
    results::SystemSample system;
    system.host = host.sample();
    system.epoch_millis = system.host.epoch_millis;
    system.worker = worker.sample();
    system.generator = generator.sample();
    if (database) {
      system.database = database->sample();
    }
    system.worker_stats = supervisor.latestStats();
    return system;
  }

  sampling::HostSampler host;
  sampling::ProcessSampler worker;
  sampling::ProcessSampler generator;
  /// A postgres row's private cluster: the postmaster and all its processes.
  std::optional<sampling::ProcessTreeSampler> database;
};

}  // namespace

RowRun::RowRun(RowRunContext context, const RowPlan& row_plan, const Approach& approach,
               store::ResultId result_id)
    : context_(std::move(context)),
      row_plan_(row_plan),
      approach_(approach),
      result_id_(result_id) {}

results::SummaryRow RowRun::failedRow(const RowFailure& failure) const {
  results::SummaryRow row = results::failedRow(row_plan_.row.name, approach_.name, failure.reason,
                                               failure.errors, failure.ok);
  // The cap in force is recorded for every result; a failed one's peak is in its reason.
  row.diagnostics.memory_cap_bytes =
      approach_.memory_cap_bytes.value_or(context_.settings.memory_cap_bytes.value_or(0));
  return row;
}

std::optional<results::SummaryRow> RowRun::run() {
  context_.observer.onStep(context_.progress(RunStep::kStarting, 0.0, 0.0));
  if (const std::optional<RowFailure> refused = refusal()) {
    return failedRow(*refused);
  }
  SecondNumbering numbering;
  RowAttempt attempted = attempt(row_plan_.row, numbering);
  test_seconds_ = std::move(attempted.test_seconds);
  if (attempted.stopped) {
    return std::nullopt;
  }
  if (attempted.failure) {
    return failedRow(*attempted.failure);
  }
  try {
    const results::TestPhaseData data{*attempted.phases->test, test_seconds_,
                                      row_plan_.workload.isOpenModel()};
    results::SummaryRow summary = results::computeSummary(row_plan_.row.name, approach_.name, data);
    // A worker that had to be killed, or cut requests off at stop, still produced valid
    // numbers; say so beside them rather than failing the row.
    summary.diagnostics.worker_stop = attempted.worker_stop;
    summary.diagnostics.memory_cap_bytes = attempted.memory_cap_bytes;
    summary.diagnostics.memory_peak_bytes = attempted.memory_peak_bytes;
    return summary;
  } catch (const std::exception& error) {
    return failedRow({error.what()});
  }
}

RowAttempt RowRun::attempt(const scenario::ScenarioRow& row, SecondNumbering& numbering,
                           const EndsEarly& ends_early) {
  RowAttempt attempted;
  try {
    WorkerLaunch launch;
    if (std::optional<RowFailure> failure = prepareLaunch(launch)) {
      attempted.failure = std::move(failure);
      return attempted;
    }
    WorkerSupervisor worker(launch);
    std::optional<std::string> not_ready =
        worker.waitReady(context_.settings.health_timeout, [this] { return stopping(); });
    if (stopping()) {
      attempted.stopped = true;
      return attempted;
    }
    if (not_ready) {
      attempted.failure = RowFailure{std::move(*not_ready)};
      return attempted;
    }
    context_.observer.onStep(context_.progress(RunStep::kVerifying, 0.0, 0.0));
    if (std::optional<RowFailure> wrong = verifyAnswers(worker, "")) {
      attempted.failure = std::move(wrong);
      return attempted;
    }
    std::optional<measurement::PhaseKind> died_in;
    std::optional<loadgen::ScenarioResult> phases = measure(
        worker, row, numbering, attempted.test_seconds, ends_early, attempted.ended_early, died_in);
    if (!phases) {
      attempted.stopped = true;
      return attempted;
    }
    if (std::optional<RowFailure> failure = judgeAfterLoad(worker, *phases, died_in)) {
      attempted.failure = std::move(failure);
      return attempted;
    }
    const common::ExitStatus stopped = worker.stop();
    if (!stopped.succeeded()) {
      attempted.worker_stop = stopped.describe();
    }
    attempted.memory_cap_bytes = worker.memoryCapBytes();
    attempted.memory_peak_bytes = worker.memoryPeakBytes();
    attempted.phases = std::move(phases);
  } catch (const std::exception& error) {
    attempted.failure = RowFailure{error.what()};
  }
  return attempted;
}

std::optional<RowFailure> RowRun::refusal() const {
  if (!row_plan_.unsupported_profiles.empty()) {
    std::string reason;
    for (const std::string& profile : row_plan_.unsupported_profiles) {
      reason += (reason.empty() ? "" : "; ") + microservice::unsupportedProfileReason(profile);
    }
    return RowFailure{reason};
  }
  if (!row_plan_.limits.problems.empty()) {
    std::string reason = "refused by the host's limits:";
    for (const std::string& problem : row_plan_.limits.problems) {
      reason += " " + problem;
    }
    return RowFailure{reason};
  }
  return std::nullopt;
}

bool RowRun::servesTls() const {
  const std::vector<std::string>& profiles = row_plan_.row.server_profiles;
  return std::any_of(profiles.begin(), profiles.end(), [](const std::string& profile) {
    return microservice::needsCertificate(profile);
  });
}

bool RowRun::servesHttp2() const {
  const std::vector<std::string>& profiles = row_plan_.row.server_profiles;
  return std::any_of(profiles.begin(), profiles.end(), [](const std::string& profile) {
    return microservice::isHttp2Profile(profile);
  });
}

std::optional<RowFailure> RowRun::prepareLaunch(WorkerLaunch& launch) {
  const RunSettings& settings = context_.settings;
  launch.worker = settings.worker;
  launch.plugin = approach_.plugin;
  launch.profiles = row_plan_.row.server_profiles;
  launch.plugin_options = approach_.plugin_options;
  launch.threads = approach_.worker_threads;
  launch.cpus = settings.server_cpus;
  launch.stop_timeout = settings.worker_stop_timeout;
  launch.memory_cap_bytes =
      approach_.memory_cap_bytes ? approach_.memory_cap_bytes : settings.memory_cap_bytes;
  if (servesTls()) {
    std::unique_ptr<tls::TemporaryIdentity>& certificate = context_.certificate;
    try {
      if (!certificate)
        certificate = makeRunCertificate();
    } catch (const std::exception& error) {
      return RowFailure{std::string("cannot make the TLS rows' certificate: ") + error.what()};
    }
    launch.tls = certificate->files();
  }
  if (!row_plan_.needs_database) {
    return std::nullopt;
  }
  if (!settings.plan.database_problem.empty()) {
    return RowFailure{"PostgreSQL not found: " + settings.plan.database_problem};
  }
  std::unique_ptr<DatabaseServer>& database = context_.database;
  if (!database) {
    context_.observer.onNotice("starting PostgreSQL: " + describeDatabaseServer(settings.database));
    database = std::make_unique<DatabaseServer>(settings.database);
  }
  try {
    launch.postgres = database->prepareRow();
    if (const std::optional<std::string> notice = database->takeNotice()) {
      context_.observer.onNotice(*notice);
    }
  } catch (const std::runtime_error& error) {
    if (const std::optional<std::string> notice = database->takeNotice()) {
      context_.observer.onNotice(*notice);
    }
    return RowFailure{error.what()};
  }
  launch.db_pool = settings.database.pool_size;
  return std::nullopt;
}

std::optional<RowFailure> RowRun::verifyAnswers(WorkerSupervisor& worker, const std::string& when) {
  const std::optional<std::string> wrong =
      findWrongAnswer(worker.port(), approach_.routeName(), row_plan_.row, row_plan_.workload);
  if (!wrong) {
    return std::nullopt;
  }
  // A worker that crashed on the request resets the connection a moment before the kernel
  // reports its exit; give it that moment, so the reason names the crash.
  constexpr std::chrono::milliseconds kCrashGrace{2'000};
  std::string reason = when + *wrong;
  if (worker.exitsWithin(kCrashGrace)) {
    reason += "; the worker " + worker.describeEnd();
  }
  return RowFailure{reason};
}

std::optional<loadgen::ScenarioResult> RowRun::measure(
    WorkerSupervisor& worker, const scenario::ScenarioRow& row, SecondNumbering& numbering,
    std::vector<results::SecondRecord>& test_seconds, const EndsEarly& ends_early,
    bool& ended_early, std::optional<measurement::PhaseKind>& died_in) {
  const std::unique_ptr<DatabaseServer>& database = context_.database;
  const pid_t database_pid =
      row_plan_.needs_database && database ? database->serverPid() : pid_t{0};
  std::optional<PhaseSamplers> samplers;
  double phase_seconds = 0.0;
  loadgen::PhaseHooks hooks;
  hooks.before_phase = [&](measurement::PhaseKind kind, std::chrono::seconds duration) {
    phase_seconds = static_cast<double>(duration.count());
    context_.observer.onStep(context_.progress(stepOf(kind), 0.0, phase_seconds));
    samplers.emplace(worker.pid(), database_pid);  // the previous phase's go first
  };
  hooks.after_phase = [&](const measurement::PhaseResult& phase) {
    if (stopping()) {
      return false;
    }
    if (!worker.alive()) {
      died_in = phase.phase;
      return false;
    }
    return true;
  };
  // This attempt's seconds start where the result's earlier attempts' ended.
  const std::int64_t warmup_offset = numbering.warmup_end_micros;
  const std::int64_t test_offset = numbering.test_end_micros;
  const auto on_snapshot = [&](const measurement::LoadSnapshot& snapshot) {
    if (stopping()) {
      // A stop that came between the check below and the engine's start of the row was
      // cleared by runScenario; asking again ends the phase within an interval.
      context_.engine.requestStop();
    }
    results::SecondRecord second;
    second.load = results::LoadSecond::of(snapshot);
    const bool test_phase = snapshot.phase == measurement::PhaseKind::kTest;
    second.load.index = test_phase ? numbering.test++ : numbering.warmup++;
    second.load.start_micros += test_phase ? test_offset : warmup_offset;
    std::int64_t& phase_end = test_phase ? numbering.test_end_micros : numbering.warmup_end_micros;
    phase_end = std::max(phase_end, second.load.start_micros + second.load.duration_micros);
    second.system = samplers->sample(worker);
    context_.store.addSecond(result_id_, second);
    const double elapsed = common::secondsOfMicros((snapshot.start + snapshot.duration).count());
    context_.observer.onSecond(context_.progress(stepOf(snapshot.phase), elapsed, phase_seconds),
                               second);
    if (snapshot.phase == measurement::PhaseKind::kTest) {
      if (ends_early && !ended_early && ends_early(second)) {
        ended_early = true;
        context_.engine.requestStop();
      }
      test_seconds.push_back(std::move(second));
    }
  };
  if (stopping()) {
    return std::nullopt;
  }
  loadgen::RequestTarget target;  // the row's delays are runScenario's to set
  target.port = worker.port();
  target.approach = approach_.routeName();
  target.tls = servesTls();
  target.http2 = servesHttp2();
  target.streams_per_connection = row_plan_.row.streams_per_connection;
  loadgen::ScenarioResult phases =
      context_.engine.runScenario(row, row_plan_.workload, target, on_snapshot, hooks);
  if (stopping()) {
    return std::nullopt;
  }
  return phases;
}

std::optional<RowFailure> RowRun::judgeAfterLoad(WorkerSupervisor& worker,
                                                 const loadgen::ScenarioResult& phases,
                                                 std::optional<measurement::PhaseKind> died_in) {
  if (died_in) {
    const measurement::PhaseResult& phase =
        *died_in == measurement::PhaseKind::kWarmup ? *phases.warmup : *phases.test;
    return failureAfter("the worker " + worker.describeEnd() + " during the " +
                            std::string(measurement::phaseKindName(*died_in)) + " phase",
                        phase);
  }
  context_.observer.onStep(context_.progress(RunStep::kStopping, 0.0, 0.0));
  if (!phases.test) {
    return RowFailure{"the row has no test phase"};  // a loaded scenario row always has one
  }
  // A database that went away during the row explains its errors better than any answer.
  if (row_plan_.needs_database && context_.database) {
    if (const std::optional<std::string> gone = context_.database->failure()) {
      return failureAfter("PostgreSQL stopped answering during the row: " + *gone, *phases.test);
    }
  }
  // Read-only rows change no state, so the answers must still be right after the load: an
  // approach that degrades into fast wrong answers under load fails here.
  if (microservice::ServiceProfile::fromNames(row_plan_.row.server_profiles).read_only) {
    if (const std::optional<RowFailure> wrong = verifyAnswers(worker, "after the test phase, ")) {
      return failureAfter(wrong->reason, *phases.test);
    }
  }
  return std::nullopt;
}

}  // namespace benchd::runner
