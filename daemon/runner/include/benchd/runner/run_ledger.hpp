#pragma once

#include <benchd/results/results_markdown.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/store/result_store.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace benchd::runner {

struct RunSettings;

/// The store's record of one run, and its only writer: it records the run when it is accepted
/// (queued in the daemon, or starting at once in `benchd run`), marks it running, and ends it
/// exactly once. Whoever holds the ledger owns the record: the daemon's queue while the run
/// waits (it may stop it there), then the BenchmarkRun that executes it. The run's results and
/// seconds are written by that BenchmarkRun under the ledger's id.
///
/// A ledger that goes away without having ended its record (an exception nobody caught, a
/// queue torn down) ends it as kInterrupted, so a live process never leaves a run "running".
/// A process that dies leaves it for claimLeftoverRuns() at the store's next writer.
///
/// Thread-safety: none; one owner at a time, moved from one to the next.
class RunLedger {
 public:
  /// Records a new run of `settings` (its record, its scenario rows) with status `initial`:
  /// store::RunStatus::kQueued (it waits) or kRunning (it starts now). Throws what the store
  /// throws.
  [[nodiscard]] static RunLedger record(store::ResultStore& store, const RunSettings& settings,
                                        store::RunStatus initial);

  /// Takes over the stored record of run `run` to resume it (prepareResumption said it may be):
  /// its results that were begun and never finished are removed, and it is marked `initial`
  /// again with its resumption counted (ResultStore::resumeRun). Throws std::runtime_error when
  /// the run is gone, and what the store throws.
  [[nodiscard]] static RunLedger resume(store::ResultStore& store, store::RunId run,
                                        store::RunStatus initial);

  RunLedger(RunLedger&& other) noexcept;
  /// Ends this ledger's record first when it holds an unfinished one (as the destructor does).
  RunLedger& operator=(RunLedger&& other) noexcept;
  RunLedger(const RunLedger&) = delete;
  RunLedger& operator=(const RunLedger&) = delete;
  ~RunLedger();

  [[nodiscard]] store::RunId id() const noexcept { return id_; }
  [[nodiscard]] store::ResultStore& store() const noexcept { return *store_; }

  /// Where the run writes its files, when it is known only once the run has its id.
  void placeResults(const std::filesystem::path& results_dir);
  /// The run is running as of `started_epoch_millis` on a host with `system_specs`; called
  /// again, the later time and specs replace the earlier.
  void start(std::int64_t started_epoch_millis,
             const std::vector<std::pair<std::string, std::string>>& system_specs);
  /// Ends the record: `status` with `reason` (empty for kCompleted). Only the first end counts;
  /// later ones return false and change nothing.
  bool finish(store::RunStatus status, const std::string& reason);
  [[nodiscard]] bool finished() const noexcept { return finished_; }

 private:
  RunLedger(store::ResultStore& store, store::RunId id) : store_(&store), id_(id) {}
  /// The destructor's end of an unfinished record; never throws.
  void abandon() noexcept;

  store::ResultStore* store_;  ///< null once moved from
  store::RunId id_ = 0;
  bool finished_ = false;
};

/// The store's record of a run with these settings (system specs left empty).
[[nodiscard]] store::NewRun runRecordOf(const RunSettings& settings,
                                        std::int64_t started_epoch_millis);
/// The scenario rows as the run uses them (overrides applied), in file order.
[[nodiscard]] std::vector<scenario::ScenarioRow> plannedRows(const RunPlan& plan);
/// The (scenario, approach)s the plan skips, with the reason, for results.md.
[[nodiscard]] std::vector<results::NotRunApproach> notRunApproaches(const RunPlan& plan);

}  // namespace benchd::runner
