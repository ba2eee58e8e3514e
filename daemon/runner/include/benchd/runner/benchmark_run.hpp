#pragma once

#include <benchd/loadgen/load_engine.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/runner/capacity_search.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/runner/database_server.hpp>
#include <benchd/runner/run_ledger.hpp>
#include <benchd/runner/run_plan.hpp>
#include <benchd/store/result_store.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace benchd::tls {
class TemporaryIdentity;
}  // namespace benchd::tls

namespace benchd::runner {

class ResultsFolder;

/// An accepted plugin to run, as one approach of the run: a plugin may appear more than once,
/// as variants (approach_variant.hpp) with their own names and options.
struct Approach {
  std::string name;  ///< the variant's name (the plugin's, when it is the plugin as installed)
  std::filesystem::path plugin;
  std::vector<std::string> plugin_options;  ///< "KEY=VALUE" each, passed to the worker
  /// The plugin's own name: the path prefix its service answers under (/<plugin_name>/...),
  /// whatever the variant is called. Empty: `name`.
  std::string plugin_name;
  /// The variant's `memory_cap` (`threads-asio[memory_cap=64M]`), bytes: its workers' cap, over
  /// the run's (RunSettings::memory_cap_bytes). Never passed to the plugin.
  std::optional<std::uint64_t> memory_cap_bytes;
  /// The variant's `threads` (`callbacks-asio[threads=1]`): its workers' --threads. None: the
  /// worker's default. Never passed to the plugin as an option.
  std::optional<unsigned> worker_threads;
  /// The profiles its plugin implements itself (PluginDescription::profiles): which client
  /// profiles it can run (run_plan.hpp's skipUnimplementedClients).
  std::vector<std::string> profiles;

  [[nodiscard]] const std::string& routeName() const {
    return plugin_name.empty() ? name : plugin_name;
  }
};

/// Where one (row, approach) stands.
enum class RunStep : std::uint8_t {
  kStarting = 1,  ///< worker starting, health check
  kVerifying,     ///< checking its answers
  kWarmup,
  kTest,
  kStopping,
};
std::string_view runStepName(RunStep step);

/// A progress report: `benchd run`'s progress line, and the daemon's run status, live events
/// and metrics.
struct Progress {
  std::size_t row_number = 0;  ///< 1-based
  std::size_t row_count = 0;
  std::size_t approach_number = 0;  ///< 1-based: the place in the current round's order
  std::size_t approach_count = 0;
  std::uint32_t round = 1;    ///< 1-based: the round of the row (one run of each approach)
  std::uint32_t repeats = 1;  ///< the row's rounds: the runs of each (row, approach)
  std::string scenario;
  std::string approach;
  RunStep step = RunStep::kStarting;
  double phase_elapsed_seconds = 0.0;
  double phase_seconds = 0.0;          ///< the phase's planned length (0 outside phases)
  double run_elapsed_seconds = 0.0;    ///< since the run started
  double run_remaining_seconds = 0.0;  ///< estimate: the plan's remaining time
};

/// Receives a run's events, on the thread that runs it, in order. Implementations return
/// quickly: the snapshot events come from the load generator's interval callback.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  /// A step of a (row, approach) begins.
  virtual void onStep(const Progress& /*progress*/) {}
  /// One second of a warm-up or test phase.
  virtual void onSecond(const Progress& /*progress*/, const results::SecondRecord& /*second*/) {}
  /// A (row, approach) finished, failed rows included.
  virtual void onResult(const Progress& /*progress*/, const results::SummaryRow& /*row*/) {}
  /// A capacity row's search under `goal` ran one more fixed-rate trial (its worker already
  /// stopped).
  virtual void onTrial(const Progress& /*progress*/, const scenario::CapacityGoal& /*goal*/,
                       const results::CapacityTrialRecord& /*trial*/) {}
  /// Something about the run as a whole a person should read (e.g. the charts could not be
  /// rendered); one line.
  virtual void onNotice(const std::string& /*line*/) {}
};

/// A resumed run's past (prepareResumption): what it had finished when it ended unfinished.
struct ResumedFrom {
  std::uint32_t resumes = 1;              ///< this resumption's number, from 1
  std::int64_t started_epoch_millis = 0;  ///< when the run first started
  std::int64_t resumed_epoch_millis = 0;  ///< when this resumption was asked for
  /// Its finished results, failed ones included, in store order: they are kept as they are,
  /// and their (row, approach, round)s are not run again.
  std::vector<results::SummaryRow> earlier_results;
};

/// Everything a run needs, decided before it starts.
struct RunSettings {
  std::filesystem::path scenario_file;
  std::string scenario_set;          ///< the scenario file's stem
  RunPlan plan;                      ///< rows with overrides applied, approaches by name
  std::vector<Approach> approaches;  ///< same order as plan.approaches
  std::filesystem::path worker;      ///< the benchd-worker executable
  /// benchd-report, run after the last result to render the PNG charts results.md embeds;
  /// empty or not an executable file: no charts (results.md says "No image available").
  std::filesystem::path report_tool;
  /// How the CPUs were chosen when the request named none (the lists below are the result).
  CpuPlacement cpus = CpuPlacement::kSplit;
  std::vector<unsigned> server_cpus;     ///< empty: unpinned
  std::vector<unsigned> generator_cpus;  ///< empty: unpinned
  unsigned generator_threads = 1;
  std::filesystem::path results_dir;  ///< DIR/<scenario_set>
  /// -C: keep each (row, approach)'s per-second series as CSV files beside the results.
  bool keep_csv = false;
  std::string options_text;  ///< for results.md and the store
  /// Runs of every (row, approach): for each row, `repeats` rounds that each run every
  /// approach once, in an order shuffled per round from order_seed (with one repeat, the order
  /// given). One run is one sample of the winners' statistics.
  std::uint32_t repeats = 1;
  std::uint64_t order_seed = 0;
  /// How the winners grid is decided (stored with the run), and with which noise thresholds.
  results::WinnerRule winner_rule = results::WinnerRule::kSignificant;
  results::NoiseThresholds noise_thresholds = results::shippedNoiseThresholds();
  /// An A/A check (an approach and its copy): at the end the run measures noise thresholds from
  /// its rounds and writes them beside its results (measured-noise-thresholds.csv).
  bool aa_check = false;
  /// Each worker's process tree runs in a cgroup capped at this many bytes (MemoryCapGroup);
  /// none: uncapped. A worker the kernel's OOM killer ends fails its row as "OOM — did not
  /// complete", and every result records the cap and the peak (Diagnostics).
  std::optional<std::uint64_t> memory_cap_bytes;
  /// Capacity rows: the bracket's width each search stops at, as a share of its low end
  /// (`--capacity-resolution`, docs/scenarios.md#capacity-rows).
  double capacity_resolution = kDefaultCapacityResolution;
  /// A worker must be ready and answer /health within this (the original polled for 120 s).
  std::chrono::milliseconds health_timeout{30'000};
  /// How long a worker may drain requests in flight at stop (its --stop-timeout-ms); SIGKILL
  /// follows a few seconds later.
  std::chrono::milliseconds worker_stop_timeout{10'000};
  /// The PostgreSQL server of the `postgres` rows, started on the first one.
  DatabaseServerSettings database;
  /// What was asked for (runner::storedRequestJson, with the seed and the scenario file's
  /// absolute path filled in), stored with the run so that it can be resumed.
  std::string stored_request;
  /// Set for a resumed run: it continues its stored record instead of starting anew.
  std::optional<ResumedFrom> resumed;
};

enum class RunOutcome : std::uint8_t { kCompleted = 1, kStopped };

struct RunReport {
  store::RunId run_id = 0;
  RunOutcome outcome = RunOutcome::kCompleted;
  std::vector<results::SummaryRow> rows;  ///< finished results, in run order
  std::chrono::seconds elapsed{0};
};

/// Runs a scenario file against approaches: for each row, in rounds, for each approach a
/// RowRun (row_run.hpp: a fresh benchd-worker on an ephemeral port → health check → answer check
/// → warm-up (stored, never summarised) → test → stop). Host, worker and generator samples are
/// taken at the end of every load-generator interval, so each stored second pairs one snapshot
/// with the samples of the same interval. A worker that will not start, answers wrongly, dies
/// or leaves its test phase dead gets the original's failed row with the cause; the run carries
/// on. Every second and every summary goes to the store as it happens.
///
/// The run's record is its ledger's: from construction the store says the run is running, and
/// execute() ends it (completed, stopped, or failed with the exception's reason) on every path.
///
/// The generator threads are pinned to generator_cpus (this process's threads created during the
/// run inherit the calling thread's affinity, which execute() sets and restores).
///
/// Thread-safety: execute() on one thread, once; requestStop() from any thread (a signal
/// watcher): the current phase ends early, the current (row, approach) is discarded, what
/// finished stays, the run is marked stopped.
///
/// Errors: a failed (row, approach) is a result, not an error. execute() throws only when the
/// run cannot go on (the store or the results folder fails); the run is then marked failed in
/// the store and results.md is written for what finished before the exception propagates.
class BenchmarkRun {
 public:
  /// `ledger` holds the run's record (RunLedger::record); the run's results go to its store.
  BenchmarkRun(RunSettings settings, RunLedger ledger, RunObserver& observer);
  ~BenchmarkRun();
  BenchmarkRun(const BenchmarkRun&) = delete;
  BenchmarkRun& operator=(const BenchmarkRun&) = delete;

  RunReport execute();
  void requestStop() noexcept;

  [[nodiscard]] const RunSettings& settings() const noexcept { return settings_; }
  [[nodiscard]] store::RunId id() const noexcept { return ledger_.id(); }

 private:
  struct Context;
  /// execute() with the record's end left to the caller's catch.
  RunReport executeRecorded(Context& context);
  /// Every (row, approach) in order, into `report` and `folder`.
  void runAll(Context& context, ResultsFolder& folder, RunReport& report);

  RunSettings settings_;
  RunLedger ledger_;
  store::ResultStore& store_;
  RunObserver& observer_;
  /// Built once and never replaced, so requestStop() from another thread always finds it.
  /// Its threads are created per phase by execute()'s thread and inherit its affinity.
  loadgen::LoadEngine engine_;
  std::atomic<bool> stop_requested_{false};
  /// The `postgres` rows' server: made by the first such row, stopped at the run's end.
  std::unique_ptr<DatabaseServer> database_;
  /// The `tls` rows' certificate: made by the first such row, removed at the run's end.
  std::unique_ptr<tls::TemporaryIdentity> certificate_;
};

}  // namespace benchd::runner
