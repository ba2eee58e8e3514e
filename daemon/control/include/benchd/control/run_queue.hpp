#pragma once

#include <benchd/results/series.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/run_preparation.hpp>
#include <benchd/runner/run_resumption.hpp>
#include <benchd/store/result_store.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

namespace benchd::control {

/// One event of a run, as the daemon streams it (Server-Sent Events): `type` is "phase" (a step
/// of a (row, approach) begins), "snapshot" (one second of load), "trial" (a capacity search's
/// fixed-rate trial ended), "row" (a (row, approach) finished) or "end" (the run ended); `data` is
/// one JSON object; `sequence` counts the run's events from 1, so a client can say where it left
/// off.
struct RunEvent {
  store::RunId run = 0;
  std::uint64_t sequence = 0;
  std::string type;
  std::string data;
};

/// Where a run stands in the queue.
struct RunQueueStatus {
  enum class Kind : std::uint8_t { kQueued = 1, kRunning, kFinished };
  Kind kind = Kind::kFinished;
  std::size_t position = 0;   ///< kQueued: 1 = next
  runner::Progress progress;  ///< kRunning: the latest progress
};

/// The running run as it stands: its latest progress and its latest second of load (nothing
/// before its first second).
struct LiveRun {
  store::RunId run = 0;
  runner::Progress progress;
  std::optional<results::SecondRecord> latest_second;  ///< the run's latest second, if any yet
};

/// The queue no longer takes runs: it is shutting down.
class RunQueueClosedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The queue is full (RunQueue::Options::max_queued waiting runs).
class RunQueueFullError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The daemon's benchmarks: one runs at a time, on the queue's own thread, the others wait in
/// submission order. Each is checked when it is submitted (runner::prepareRun, so a bad request
/// fails at once with its reason) and recorded in the store as queued; it then runs through the
/// same BenchmarkRun as `benchd run`, so both produce the same rows, files and winners. Each
/// run writes its files to `environment.output_dir/run-<id>/` (runs of one scenario file must
/// not overwrite each other) and every event it publishes is stored first (ResultStore::
/// addEvent), so a listener that subscribes and then reads the store misses nothing.
///
/// Thread-safety: every member function may be called from any thread. Event listeners are
/// called on the queue's thread, in order, one event at a time; they must return quickly
/// (they hold up the run's snapshot callback) and must not call back into the queue.
class RunQueue {
 public:
  struct Options {
    runner::RunEnvironment environment;
    std::size_t max_queued = 16;  ///< waiting runs, the running one not counted
  };

  RunQueue(Options options, store::ResultStore& store);
  /// shutdown().
  ~RunQueue();
  RunQueue(const RunQueue&) = delete;
  RunQueue& operator=(const RunQueue&) = delete;

  /// Checks the request and queues it, choosing approaches from `catalog` when given (else the
  /// plugin folders are inspected). Throws what runner::prepareRun throws for a request that
  /// cannot run, RunQueueFullError when the queue is full, and RunQueueClosedError after
  /// shutdown().
  store::RunId submit(const runner::RunRequest& request,
                      const runner::PluginCatalog* catalog = nullptr);

  /// Queues run `run` of the store, which ended before it finished, to go on under its own id
  /// and results folder with the runs it lacks (runner::prepareResumption, with approaches from
  /// `catalog` when given). Only a run whose scenario file is in the environment's scenario
  /// folders: the daemon runs no file a client could not have named. Throws what
  /// prepareResumption throws (runner::ResumeError kNotResumable for a file elsewhere),
  /// RunQueueFullError and RunQueueClosedError.
  void resume(store::RunId run, const runner::PluginCatalog* catalog = nullptr);

  enum class StopResult : std::uint8_t {
    kStopping = 1,      ///< it was running; it stops cleanly and is marked stopped
    kRemovedFromQueue,  ///< it was waiting; it is marked stopped and will not run
    kNotActive,         ///< unknown here, or already finished
  };
  StopResult stop(store::RunId run);

  /// Queued or running runs; nullopt for anything else (look those up in the store).
  [[nodiscard]] std::optional<RunQueueStatus> status(store::RunId run) const;
  [[nodiscard]] std::size_t queueLength() const;
  /// The running run, or nothing while none runs.
  [[nodiscard]] std::optional<LiveRun> live() const;

  using Listener = std::function<void(const RunEvent&)>;
  /// Adds a listener for the events of every run; returns its handle.
  std::uint64_t subscribe(Listener listener);
  /// Removes it; when this returns, it is not being called and will not be again.
  void unsubscribe(std::uint64_t handle);

  /// Stops the running run, marks the waiting ones stopped and joins the queue's thread.
  /// Idempotent.
  void shutdown();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::control
