#pragma once

#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/results/noise_thresholds.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/scenario/scenario_row.hpp>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::sqlite {
class SqliteConnection;
}

namespace benchd::store {

using RunId = std::int64_t;
using ResultId = std::int64_t;

/// Where a run stands. Stored by name.
enum class RunStatus : std::uint8_t {
  kRunning = 1,  ///< started, not finished (or the process died while it ran)
  kCompleted,    ///< every row and approach ran (some may have failed results)
  kStopped,      ///< stopped on request (Ctrl-C, API); what finished is kept
  kFailed,       ///< could not go on (e.g. the results folder became unwritable)
  kQueued,       ///< accepted by the daemon, waiting for the runs before it
  /// Was running or queued when the process that owned it died (found so at the next start);
  /// what was stored before is kept.
  kInterrupted,
};
std::string_view runStatusName(RunStatus status);
std::optional<RunStatus> runStatusFromName(std::string_view name);

/// A store file that cannot be used: unreadable, not a benchd store, or written by a newer
/// benchd (its schema version is above kSchemaVersion). what() names the file and the reason.
class StoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What a run is, as recorded when it starts.
struct NewRun {
  std::string scenario_file;  ///< the path it was loaded from
  std::string scenario_set;   ///< the file's stem, which names the results folder
  std::vector<std::string> approaches;
  std::string options_text;  ///< the overrides and settings, one line for people
  std::vector<std::pair<std::string, std::string>> system_specs;
  std::string results_dir;
  std::int64_t started_epoch_millis = 0;
  /// Runs per (row, approach), in rounds (RunSettings::repeats).
  std::uint32_t repeats = 1;
  /// Seeds the approach order of every round, so a run's order can be reproduced.
  std::uint64_t order_seed = 0;
  /// How its winners are decided (stored by results::winnerRuleName).
  results::WinnerRule winner_rule = results::WinnerRule::kSignificant;
  /// What was asked for, as runner::storedRequestJson wrote it: what a resumption runs again.
  /// Empty for runs stored by a benchd before schema version 7 (they cannot be resumed).
  std::string request;
  /// How often the run was resumed (resumeRun), and when the latest resumption started (epoch
  /// ms; 0 when never).
  std::uint32_t resumes = 0;
  std::int64_t resumed_epoch_millis = 0;
  /// The noise thresholds its winners are decided with, as results::writeNoiseThresholds wrote
  /// them; empty for runs stored before schema version 7 (noiseThresholdsOf).
  std::string noise_thresholds;
};

/// The noise thresholds of `run`: those it recorded, or the shipped ones when it recorded none
/// (or text that cannot be read, which the source then says).
[[nodiscard]] results::NoiseThresholds noiseThresholdsOf(const NewRun& run);

struct RunRecord {
  RunId id = 0;
  NewRun run;
  RunStatus status = RunStatus::kRunning;
  std::int64_t finished_epoch_millis = 0;  ///< 0 while running
  std::string error;                       ///< why it failed or stopped; empty otherwise
  /// Its finished results that failed (a worker that would not start, died, answered wrongly,
  /// ...): a run can complete with some; `benchd run` then exits 3.
  std::size_t failed_results = 0;
};

/// One event of a run's live stream as stored (see control::RunEvent): `sequence` counts the
/// run's events from 1.
struct StoredEvent {
  std::uint64_t sequence = 0;
  std::string type;
  std::string data;
};

/// Which runs listRuns() returns: optionally one status, newest first, a page of them.
struct RunQuery {
  std::optional<RunStatus> status;
  std::size_t offset = 0;
  std::size_t limit = 100;
};

/// The results store: one SQLite file (WAL journal) holding runs, their scenario rows, one
/// result per (row, approach) with its summary metrics and diagnostics, and the per-second
/// series of every phase (load-generator intervals and the samples paired with them).
///
/// Schema: versioned with PRAGMA user_version and migrated forward on open, one step at a time
/// (migrations are never edited once released; a new schema is a new step). A file whose
/// version is newer than kSchemaVersion is refused rather than guessed at. The file is the
/// contract between benchd and benchd-report: docs/store-schema.md describes every table and
/// column and the compatibility rule.
///
/// Thread-safety: every member function may be called from any thread; calls on one store are
/// serialised. One writer per file is the intended use; readers should open their own
/// ResultStore on the same file, which WAL lets read while the writer writes.
class ResultStore {
 public:
  static constexpr int kSchemaVersion = 8;

  /// Opens or creates the file (and its folder) and migrates it to kSchemaVersion. Throws
  /// StoreError.
  explicit ResultStore(const std::filesystem::path& file);
  ~ResultStore();
  ResultStore(const ResultStore&) = delete;
  ResultStore& operator=(const ResultStore&) = delete;

  [[nodiscard]] const std::filesystem::path& file() const noexcept { return file_; }
  [[nodiscard]] int schemaVersion() const;

  /// Records a run with status `initial` (kRunning when it starts at once, kQueued when it
  /// waits); its system specs are those of `run`. Run ids grow and are never given twice, not
  /// even after the newest run was deleted.
  RunId createRun(const NewRun& run, RunStatus initial = RunStatus::kRunning);
  /// A queued run starts: status kRunning, its start time and system specs as now.
  void startRun(RunId run, std::int64_t started_epoch_millis,
                const std::vector<std::pair<std::string, std::string>>& system_specs);
  /// The run goes on where it ended (stopped, interrupted or failed): status `status` (kQueued
  /// or kRunning), no end time or error, its resumption counted and timed. Its start time, rows
  /// and finished results stay. Returns false when there is no such run.
  bool resumeRun(RunId run, RunStatus status, std::int64_t resumed_epoch_millis);
  /// Removes the run's results that were begun and never finished (a run stopped or killed
  /// mid-result), with their seconds. Returns how many.
  std::size_t deleteUnfinishedResults(RunId run);
  /// The highest sequence of the run's stored events (0 when none): where a resumed run's
  /// events go on.
  [[nodiscard]] std::uint64_t lastEventSequence(RunId run) const;
  /// Every run still kRunning or kQueued belonged to a process that is gone: marks them
  /// kInterrupted with that reason. Returns how many. Only for a writer that knows it is alone
  /// (claimWriter()).
  std::size_t markInterruptedRuns(std::int64_t now_epoch_millis);
  /// Makes this store object a writer of runs (`benchd run`, the daemon): it holds a claim on
  /// the file (an advisory lock beside it, see writer_claim.hpp) until it is destroyed. When no
  /// other writer holds one, the runs still running or queued were left by writers that died
  /// (SIGKILL, a full disk, power loss) and are marked kInterrupted first. Returns how many were
  /// marked. Call once, before the first run is recorded. Throws StoreError.
  std::size_t claimWriter(std::int64_t now_epoch_millis);
  /// The scenario rows of the run, in file order (row index = position).
  void addScenarioRows(RunId run, std::span<const scenario::ScenarioRow> rows);
  /// Starts the result of one run of a (row, approach): its `round` (from 1) and its
  /// place in the round's approach order (`round_position`, from 1).
  ResultId beginResult(RunId run, std::size_t row_index, const std::string& scenario,
                       const std::string& approach, std::uint32_t round = 1,
                       std::uint32_t round_position = 1);
  /// One second of a phase of a result.
  void addSecond(ResultId result, const results::SecondRecord& second);
  /// The result's summary row (a failed row too).
  void finishResult(ResultId result, const results::SummaryRow& summary);
  /// One fixed-rate trial of a capacity row's search (a trial number stored twice keeps the
  /// latest).
  void addCapacityTrial(ResultId result, const results::CapacityTrialRecord& trial);
  /// The result's capacity trials in the order they ran; empty for a fixed-load result.
  [[nodiscard]] std::vector<results::CapacityTrialRecord> capacityTrials(ResultId result) const;
  void finishRun(RunId run, RunStatus status, const std::string& error,
                 std::int64_t finished_epoch_millis);
  /// Where the run writes its files (known to the daemon only once the run has its id).
  void setResultsDir(RunId run, const std::string& results_dir);
  /// Removes the run with everything stored for it (rows, results, series, events). Returns
  /// false when there is no such run. Whether it may be deleted is the caller's business.
  bool deleteRun(RunId run);

  /// One event of the run's stream; a sequence stored twice keeps the first.
  void addEvent(RunId run, const StoredEvent& event);
  /// The run's stored events after `after_sequence`, in order, at most `limit` of them.
  [[nodiscard]] std::vector<StoredEvent> events(
      RunId run, std::uint64_t after_sequence,
      std::size_t limit = std::numeric_limits<std::size_t>::max()) const;

  /// Every run, oldest first.
  [[nodiscard]] std::vector<RunRecord> listRuns() const;
  /// A page of runs, newest first, optionally of one status.
  [[nodiscard]] std::vector<RunRecord> listRuns(const RunQuery& query) const;
  /// How many runs there are (of `status`, when given).
  [[nodiscard]] std::size_t countRuns(std::optional<RunStatus> status) const;
  [[nodiscard]] std::optional<RunRecord> findRun(RunId run) const;
  [[nodiscard]] std::vector<scenario::ScenarioRow> scenarioRows(RunId run) const;
  /// The finished results of a run, every repeat, in row order then the order they were begun.
  [[nodiscard]] std::vector<results::SummaryRow> summaries(RunId run) const;
  /// The result id of (run, scenario, approach, round), or nullopt.
  [[nodiscard]] std::optional<ResultId> findResult(RunId run, const std::string& scenario,
                                                   const std::string& approach,
                                                   std::uint32_t round = 1) const;
  /// The stored seconds of one phase of a result, in order.
  [[nodiscard]] std::vector<results::SecondRecord> seconds(ResultId result,
                                                           measurement::PhaseKind phase) const;

 private:
  struct Impl;
  std::filesystem::path file_;
  std::unique_ptr<Impl> impl_;
};

/// Brings `connection` from its current schema version up to `target_version` (not beyond
/// kSchemaVersion), each step in its own transaction. Exposed so tests can build an old-schema
/// file; ResultStore calls it on open.
void migrateSchema(sqlite::SqliteConnection& connection, int target_version);

}  // namespace benchd::store
