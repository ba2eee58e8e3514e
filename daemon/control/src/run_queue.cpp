#include "api_support.hpp"
#include "run_event_json.hpp"

#include <benchd/control/daemon_log.hpp>
#include <benchd/control/run_queue.hpp>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

namespace benchd::control {
namespace {

/// A run in the waiting list: its settings, and its record, held here until it runs.
struct Waiting {
  runner::RunLedger ledger;
  runner::RunSettings settings;

  [[nodiscard]] store::RunId id() const { return ledger.id(); }
};

}  // namespace

/// The queue's state (under `mutex`), its thread, and the observer that turns the running
/// BenchmarkRun's callbacks into events.
struct RunQueue::Impl final : runner::RunObserver {
  Impl(Options queue_options, store::ResultStore& result_store)
      : options(std::move(queue_options)), store(result_store) {}

  Options options;
  store::ResultStore& store;

  mutable std::mutex mutex;
  std::condition_variable wake;
  std::deque<Waiting> waiting;
  std::optional<store::RunId> running_id;
  runner::BenchmarkRun* running = nullptr;  ///< owned by loop(); valid while running_id is set
  runner::Progress progress;
  std::optional<results::SecondRecord> latest_second;
  bool shutting_down = false;
  std::thread thread;

  /// Held while listeners are called, so unsubscribe() waits for a call in progress.
  std::mutex listeners_mutex;
  std::map<std::uint64_t, Listener> listeners;
  std::uint64_t next_handle = 1;
  std::uint64_t sequence = 0;  ///< of the running run's events; only the queue's thread

  /// Stores `event`, then tells every listener. The queue's thread calls it for the running
  /// run; stop() and shutdown() for the end of a run that never left the waiting list (its
  /// only event). Never with `mutex` held: listeners lock their own state, which may be held
  /// while status() is asked.
  void deliver(const RunEvent& event) {
    try {
      store.addEvent(event.run, {event.sequence, event.type, event.data});
    } catch (const std::exception& failure) {
      // The live stream goes on; only a resumption from the store would miss this event.
      logLine(LogLevel::kWarning, "could not store event " + std::to_string(event.sequence) +
                                      " of run " + std::to_string(event.run) + ": " +
                                      failure.what());
    }
    const std::scoped_lock lock(listeners_mutex);
    for (const auto& [handle, listener] : listeners) {
      listener(event);
    }
  }

  /// Throws RunQueueFullError when a new run would wait behind `options.max_queued` others.
  /// An idle queue takes a run whatever the limit (it starts at once). Under `mutex`.
  void refuseWhenFull() const {
    if (!running_id && waiting.empty()) {
      return;  // idle: it starts at once
    }
    // Until the queue's thread takes it, the head of the list is about to run, not waiting.
    const std::size_t behind = running_id ? waiting.size() : waiting.size() - 1;
    if (behind >= options.max_queued) {
      throw RunQueueFullError("the queue already holds " + std::to_string(behind) +
                              " waiting run(s) behind the running one (max_queued = " +
                              std::to_string(options.max_queued) + "); stop one or wait");
    }
  }

  /// The running run's next event. Only the queue's thread.
  void publish(store::RunId run, const char* type, std::string data) {
    deliver({run, ++sequence, type, std::move(data)});
  }

  /// Marks a run that never started (this time) stopped (under `mutex`); the caller then
  /// delivers the returned end event, outside the lock. A resumed run's events go on after
  /// those it has.
  static RunEvent stopWaiting(Waiting& run, const std::string& reason) {
    run.ledger.finish(store::RunStatus::kStopped, reason);
    return {run.id(), run.ledger.store().lastEventSequence(run.id()) + 1, "end",
            endEventJson("stopped", reason)};
  }

  store::RunId current() const {
    const std::scoped_lock lock(mutex);
    return running_id.value_or(0);
  }

  void remember(const runner::Progress& now) {
    const std::scoped_lock lock(mutex);
    progress = now;
  }

  void onStep(const runner::Progress& now) override {
    remember(now);
    publish(current(), "phase", phaseEventJson(now));
  }
  void onSecond(const runner::Progress& now, const results::SecondRecord& second) override {
    {
      const std::scoped_lock lock(mutex);
      progress = now;
      latest_second = second;
    }
    publish(current(), "snapshot", snapshotEventJson(now, second));
  }
  void onResult(const runner::Progress& /*now*/, const results::SummaryRow& row) override {
    publish(current(), "row", rowEventJson(row));
  }
  void onTrial(const runner::Progress& now, const scenario::CapacityGoal& goal,
               const results::CapacityTrialRecord& trial) override {
    publish(current(), "trial", trialEventJson(now, goal, trial));
  }

  void onNotice(const std::string& line) override {
    logLine(LogLevel::kInfo, "run " + std::to_string(current()) + ": " + line);
  }

  /// Takes the next waiting run and makes it the running one, in `run`; leaves `run` empty
  /// when shutting down, or when the run could not start (then `start_failure` says which and
  /// why). Under the lock, so stop() finds the run it names from the moment it leaves the
  /// waiting list; the BenchmarkRun takes the run's record over and marks it running.
  void takeNext(std::optional<runner::BenchmarkRun>& run, std::optional<RunEvent>& start_failure) {
    std::unique_lock lock(mutex);
    wake.wait(lock, [this] { return shutting_down || !waiting.empty(); });
    if (shutting_down) {
      return;
    }
    Waiting next = std::move(waiting.front());
    waiting.pop_front();
    running_id = next.id();
    progress = {};
    latest_second.reset();
    try {
      run.emplace(std::move(next.settings), std::move(next.ledger), *this);
    } catch (const std::exception& failure) {
      // The store could not mark it running; its ledger tried to mark it ended on the way out.
      logLine(LogLevel::kError,
              "run " + std::to_string(*running_id) + " could not start: " + failure.what());
      start_failure = RunEvent{*running_id, 1, "end", endEventJson("failed", failure.what())};
      running_id.reset();
      return;
    }
    running = &*run;
  }

  void loop() {
    for (;;) {
      std::optional<RunEvent> start_failure;
      std::optional<runner::BenchmarkRun> run;
      takeNext(run, start_failure);
      if (!run) {
        if (!start_failure) {
          return;  // shutting down
        }
        deliver(*start_failure);
        continue;
      }
      // A resumed run's events go on after those it has (none for a new run).
      sequence = store.lastEventSequence(run->id());
      std::string status = "completed";
      std::string error;
      const store::RunId id = run->id();
      const runner::RunSettings& settings = run->settings();
      const std::string name = "run " + std::to_string(id);
      logLine(LogLevel::kInfo, name + " started: " + settings.scenario_file.filename().string() +
                                   ", " + std::to_string(settings.plan.rows.size()) + " row(s) x " +
                                   std::to_string(settings.plan.approaches.size()) +
                                   " approach(es)");
      const auto started = std::chrono::steady_clock::now();
      try {
        if (run->execute().outcome == runner::RunOutcome::kStopped) {
          status = "stopped";
          error = "stopped on request";
        }
      } catch (const std::exception& failure) {
        // execute() has marked the run failed with this reason (its ledger's end).
        status = "failed";
        error = failure.what();
      }
      const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
      std::string ended = name;
      ended.append(" ")
          .append(status)
          .append(" after ")
          .append(std::to_string(seconds))
          .append(" s");
      if (!error.empty()) {
        ended += ": ";
        ended += error;
      }
      logLine(status == "failed" ? LogLevel::kError : LogLevel::kInfo, ended);
      {
        // Before the end event: whoever hears it finds the run finished, not running.
        const std::scoped_lock lock(mutex);
        running = nullptr;
        running_id.reset();
      }
      publish(id, "end", endEventJson(status, error));
    }
  }
};

RunQueue::RunQueue(Options options, store::ResultStore& store)
    : impl_(std::make_unique<Impl>(std::move(options), store)) {
  impl_->thread = std::thread([impl = impl_.get()] { impl->loop(); });
}

RunQueue::~RunQueue() {
  shutdown();
}

store::RunId RunQueue::submit(const runner::RunRequest& request,
                              const runner::PluginCatalog* catalog) {
  {
    const std::scoped_lock lock(impl_->mutex);
    if (impl_->shutting_down) {
      throw RunQueueClosedError("the daemon is shutting down and takes no more runs");
    }
    impl_->refuseWhenFull();
  }
  // Checked outside the lock: inspecting plugins takes a while.
  runner::PreparedRun prepared = runner::prepareRun(request, impl_->options.environment, catalog);
  runner::RunSettings& settings = prepared.settings;
  const std::scoped_lock lock(impl_->mutex);
  if (impl_->shutting_down) {
    throw RunQueueClosedError("the daemon is shutting down and takes no more runs");
  }
  impl_->refuseWhenFull();
  runner::RunLedger ledger =
      runner::RunLedger::record(impl_->store, settings, store::RunStatus::kQueued);
  const store::RunId id = ledger.id();
  settings.results_dir = impl_->options.environment.output_dir / ("run-" + std::to_string(id));
  ledger.placeResults(settings.results_dir);
  logLine(LogLevel::kInfo, "run " + std::to_string(id) +
                               " queued: " + settings.scenario_file.string() + " (" +
                               std::to_string(impl_->waiting.size()) + " waiting before it)");
  impl_->waiting.push_back(Waiting{std::move(ledger), std::move(settings)});
  impl_->wake.notify_one();
  return id;
}

void RunQueue::resume(store::RunId run, const runner::PluginCatalog* catalog) {
  {
    const std::scoped_lock lock(impl_->mutex);
    if (impl_->shutting_down) {
      throw RunQueueClosedError("the daemon is shutting down and takes no more runs");
    }
    impl_->refuseWhenFull();
  }
  const runner::RunEnvironment& environment = impl_->options.environment;
  runner::PreparedRun prepared = runner::prepareResumption(impl_->store, run, environment, catalog);
  runner::RunSettings& settings = prepared.settings;
  if (!isInsideFolder(settings.scenario_file, environment.scenarios_dir) &&
      !isInsideFolder(settings.scenario_file, environment.uploaded_scenarios_dir)) {
    throw runner::ResumeError(runner::ResumeProblem::kNotResumable,
                              "run " + std::to_string(run) + " ran " +
                                  settings.scenario_file.string() +
                                  ", which is not among the daemon's scenario files; resume it "
                                  "with benchd run --resume");
  }
  const std::size_t missing = runner::missingRuns(settings);
  const std::scoped_lock lock(impl_->mutex);
  if (impl_->shutting_down) {
    throw RunQueueClosedError("the daemon is shutting down and takes no more runs");
  }
  impl_->refuseWhenFull();
  // Checked under the lock too: a run the queue holds is never taken over twice.
  if (impl_->running_id == run ||
      std::any_of(impl_->waiting.begin(), impl_->waiting.end(),
                  [run](const Waiting& entry) { return entry.id() == run; })) {
    throw runner::ResumeError(runner::ResumeProblem::kStillActive,
                              "run " + std::to_string(run) + " is already queued or running");
  }
  runner::RunLedger ledger =
      runner::RunLedger::resume(impl_->store, run, store::RunStatus::kQueued);
  logLine(LogLevel::kInfo,
          "run " + std::to_string(run) + " queued to resume: " + std::to_string(missing) +
              " run(s) missing (" + std::to_string(impl_->waiting.size()) + " waiting before it)");
  impl_->waiting.push_back(Waiting{std::move(ledger), std::move(settings)});
  impl_->wake.notify_one();
}

RunQueue::StopResult RunQueue::stop(store::RunId run) {
  std::optional<RunEvent> end;
  {
    const std::scoped_lock lock(impl_->mutex);
    if (impl_->running_id == run && impl_->running != nullptr) {
      impl_->running->requestStop();
      return StopResult::kStopping;
    }
    const auto waiting = std::find_if(impl_->waiting.begin(), impl_->waiting.end(),
                                      [run](const Waiting& entry) { return entry.id() == run; });
    if (waiting == impl_->waiting.end()) {
      return StopResult::kNotActive;
    }
    end = Impl::stopWaiting(*waiting, "stopped before it started");
    impl_->waiting.erase(waiting);
  }
  impl_->deliver(*end);
  return StopResult::kRemovedFromQueue;
}

std::optional<RunQueueStatus> RunQueue::status(store::RunId run) const {
  const std::scoped_lock lock(impl_->mutex);
  if (impl_->running_id == run) {
    RunQueueStatus status;
    status.kind = RunQueueStatus::Kind::kRunning;
    status.progress = impl_->progress;
    return status;
  }
  for (std::size_t index = 0; index < impl_->waiting.size(); ++index) {
    if (impl_->waiting[index].id() == run) {
      RunQueueStatus status;
      status.kind = RunQueueStatus::Kind::kQueued;
      status.position = index + 1;
      return status;
    }
  }
  return std::nullopt;
}

std::size_t RunQueue::queueLength() const {
  const std::scoped_lock lock(impl_->mutex);
  return impl_->waiting.size();
}

std::optional<LiveRun> RunQueue::live() const {
  const std::scoped_lock lock(impl_->mutex);
  if (!impl_->running_id) {
    return std::nullopt;
  }
  return LiveRun{*impl_->running_id, impl_->progress, impl_->latest_second};
}

std::uint64_t RunQueue::subscribe(Listener listener) {
  const std::scoped_lock lock(impl_->listeners_mutex);
  const std::uint64_t handle = impl_->next_handle++;
  impl_->listeners.emplace(handle, std::move(listener));
  return handle;
}

void RunQueue::unsubscribe(std::uint64_t handle) {
  const std::scoped_lock lock(impl_->listeners_mutex);
  impl_->listeners.erase(handle);
}

void RunQueue::shutdown() {
  std::vector<RunEvent> ends;
  {
    const std::scoped_lock lock(impl_->mutex);
    if (!impl_->shutting_down) {
      impl_->shutting_down = true;
      if (impl_->running != nullptr) {
        impl_->running->requestStop();
      }
      for (Waiting& waiting : impl_->waiting) {
        try {
          ends.push_back(Impl::stopWaiting(waiting, "the daemon shut down before it started"));
        } catch (const std::exception& failure) {
          // Marked interrupted at the next start instead.
          logLine(LogLevel::kWarning, "could not mark run " + std::to_string(waiting.id()) +
                                          " stopped: " + failure.what());
        }
      }
      impl_->waiting.clear();
    }
    impl_->wake.notify_all();
  }
  for (const RunEvent& end : ends) {
    impl_->deliver(end);
  }
  if (impl_->thread.joinable()) {
    impl_->thread.join();
  }
}

}  // namespace benchd::control
