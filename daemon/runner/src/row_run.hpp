#pragma once

#include <benchd/loadgen/load_engine.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/database_server.hpp>
#include <benchd/store/result_store.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace benchd::runner {

class WorkerSupervisor;
struct WorkerLaunch;

/// What a (row, approach) takes from the run it belongs to. All references outlive the RowRun.
struct RowRunContext {
  const RunSettings& settings;
  store::ResultStore& store;
  loadgen::LoadEngine& engine;
  const std::atomic<bool>& stop_requested;
  RunObserver& observer;
  /// The run's progress at a step (step, phase elapsed seconds, phase planned seconds).
  std::function<Progress(RunStep, double, double)> progress;
  /// The `postgres` rows' server: made by the first row that needs it, kept for the next.
  std::unique_ptr<DatabaseServer>& database;
  /// The `tls` rows' certificate: made by the first row that needs it, kept for the next.
  std::unique_ptr<tls::TemporaryIdentity>& certificate;
};

/// Why a (row, approach) failed, with the counts its failed row keeps: the errors (at least 1)
/// and the requests answered before the fault.
struct RowFailure {
  std::string reason;
  std::uint64_t errors = 1;
  std::uint64_t ok = 0;
};

/// Where the next stored second of each phase goes: a result's seconds are numbered on across
/// the attempts that make it (a capacity search's trials), from 0, and their start times too,
/// so a later trial's seconds follow the earlier ones' in charts instead of overlapping them.
struct SecondNumbering {
  std::uint32_t warmup = 0;
  std::uint32_t test = 0;
  std::int64_t warmup_end_micros = 0;  ///< where the phase's stored seconds end so far
  std::int64_t test_end_micros = 0;
};

/// Asked after every stored test second of an attempt (the second as stored): true ends the
/// test phase there, as a stop request would, but the attempt goes on to its judgement. For a
/// capacity trial whose failure is already certain.
using EndsEarly = std::function<bool(const results::SecondRecord&)>;

/// What one pass through the steps gave: the load's phases, or why it failed, or a stop.
struct RowAttempt {
  std::optional<loadgen::ScenarioResult> phases;  ///< set unless failed or stopped
  std::optional<RowFailure> failure;
  bool stopped = false;                             ///< a stop request cut it short
  bool ended_early = false;                         ///< its EndsEarly said so
  std::vector<results::SecondRecord> test_seconds;  ///< as stored, numbered on
  std::string worker_stop;  ///< how the worker ended at its stop, if not cleanly
  std::uint64_t memory_cap_bytes = 0;
  std::uint64_t memory_peak_bytes = 0;
};

/// One run of one (row, approach), in the steps the architecture names: refuse what the host
/// or the plugins cannot run → launch a fresh benchd-worker (with the row's database) → wait
/// until it is healthy → verify its answers → warm-up and test phases, every second stored
/// with the samples of its interval → judge what the load left (a dead worker, a database
/// gone, answers gone wrong) → summary row → stop the worker.
///
/// A step that fails ends the row with the original's failed-row shape and its cause; a stop
/// request ends it without a result. Used once, on the run's thread.
class RowRun {
 public:
  RowRun(RowRunContext context, const RowPlan& row_plan, const Approach& approach,
         store::ResultId result_id);

  /// The summary row (a failed one included); nullopt when a stop request cut the row short.
  std::optional<results::SummaryRow> run();

  /// The test phase's seconds, for the raw CSV files.
  [[nodiscard]] const std::vector<results::SecondRecord>& testSeconds() const noexcept {
    return test_seconds_;
  }

  // The steps, for a capacity search (CapacityRowRun), which runs them once per trial.

  /// Why the row cannot run here at all (profiles nothing implements, the host's limits).
  [[nodiscard]] std::optional<RowFailure> refusal() const;
  /// The failed-row shape of `failure`, with the memory cap in force.
  [[nodiscard]] results::SummaryRow failedRow(const RowFailure& failure) const;
  /// Launch a fresh worker → wait until healthy → verify its answers → the phases of `row` (the
  /// plan's row, or a trial's copy at another rate), every second stored under this result as
  /// numbered by `numbering` (which moves on) → judge what the load left → stop the worker.
  RowAttempt attempt(const scenario::ScenarioRow& row, SecondNumbering& numbering,
                     const EndsEarly& ends_early = {});

 private:
  [[nodiscard]] bool stopping() const { return context_.stop_requested.load(); }
  /// Whether the row's worker serves TLS (its `tls` or `h2` profile): it needs the run's
  /// certificate, and the generator speaks TLS.
  [[nodiscard]] bool servesTls() const;
  /// Whether the row speaks HTTP/2 (its `h2` or `h2c` profile), with the row's streams per
  /// connection.
  [[nodiscard]] bool servesHttp2() const;

  /// The worker's command line; the row's database prepared (started on first use).
  std::optional<RowFailure> prepareLaunch(WorkerLaunch& launch);
  std::optional<RowFailure> verifyAnswers(WorkerSupervisor& worker, const std::string& when);
  /// Runs the phases; nullopt when a stop request came.
  std::optional<loadgen::ScenarioResult> measure(WorkerSupervisor& worker,
                                                 const scenario::ScenarioRow& row,
                                                 SecondNumbering& numbering,
                                                 std::vector<results::SecondRecord>& test_seconds,
                                                 const EndsEarly& ends_early, bool& ended_early,
                                                 std::optional<measurement::PhaseKind>& died_in);
  std::optional<RowFailure> judgeAfterLoad(WorkerSupervisor& worker,
                                           const loadgen::ScenarioResult& phases,
                                           std::optional<measurement::PhaseKind> died_in);

  RowRunContext context_;
  const RowPlan& row_plan_;
  const Approach& approach_;
  store::ResultId result_id_;
  std::vector<results::SecondRecord> test_seconds_;
};

}  // namespace benchd::runner
