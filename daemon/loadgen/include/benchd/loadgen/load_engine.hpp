#pragma once

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/phase_clock.hpp>
#include <benchd/loadgen/request_target.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/measurement/phase_result.hpp>
#include <benchd/scenario/scenario_row.hpp>
#include <benchd/scenario/stage_plan.hpp>
#include <benchd/scenario/workload.hpp>

#include <atomic>
#include <functional>
#include <optional>

namespace benchd::loadgen {

/// Receives every snapshot of a phase, in order, on the thread that called run*(); never
/// concurrently. It should return quickly (it delays the next snapshot, not the load).
using SnapshotCallback = std::function<void(const measurement::LoadSnapshot&)>;

/// A scenario row's phases: the warm-up (when the row has one) and the test.
struct ScenarioResult {
  /// Kept for diagnostics only; never part of a result.
  std::optional<measurement::PhaseResult> warmup;
  /// Empty when the test phase did not run: a stop came first, or PhaseHooks::after_phase
  /// ended the row after the warm-up.
  std::optional<measurement::PhaseResult> test;
};

/// What runScenario tells its caller around each phase, on the thread that called it. Every
/// member may be empty.
struct PhaseHooks {
  /// Before a phase is set up (before its connects): e.g. to prime samplers, so the first
  /// interval's sample covers the setup too.
  std::function<void(measurement::PhaseKind kind, std::chrono::seconds duration)> before_phase;
  /// After a phase ended; returning false ends the row there (no later phase runs), e.g.
  /// because the server under test died during it.
  std::function<bool(const measurement::PhaseResult& phase)> after_phase;
};

/// The HTTP/1.1 load generator: drives a scenario::StagePlan against one server over keep-alive
/// connections from `EngineOptions::threads` event-loop threads and reports per-interval
/// snapshots plus phase totals. Memory is bounded by the connection count (fixed-size
/// histograms and counters, no per-request records), not by the run length.
///
/// Executors (k6's vocabulary): constant-vus with an optional global rate cap (one shared token
/// schedule, VUs wait their turn), ramping-vus (VUs start and stop as the target moves; VUs above
/// the target finish their current request within graceful_ramp_down), constant- and
/// ramping-arrival-rate (open model: arrivals on a fixed time line, latency from the intended
/// send time, see ArrivalOverflow). All sub-scenarios of a plan run in parallel. Each VU holds
/// one connection and reconnects when the server closes it. At the phase end requests in flight
/// may finish within the sub-scenario's graceful_stop.
///
/// Thread-safety: one phase at a time per engine (run* calls must not overlap); requestStop()
/// may be called from any thread, including a signal-watching one.
class LoadEngine {
 public:
  explicit LoadEngine(EngineOptions options = {});
  /// Snapshots on `clock` (which must outlive the engine) instead of the steady clock: for
  /// tests that drive the snapshot schedule (see PhaseClock).
  LoadEngine(EngineOptions options, PhaseClock& clock);

  [[nodiscard]] const EngineOptions& options() const noexcept { return options_; }

  /// Runs one phase to its end (plan duration plus graceful stop) and returns its totals. Raises
  /// RLIMIT_NOFILE to the hard limit and checks the host limits first: throws HostLimitError
  /// when the plan cannot work on this host (warnings land in the result). Throws
  /// std::runtime_error when the target's host does not resolve.
  measurement::PhaseResult runPhase(const scenario::StagePlan& plan, const RequestTarget& target,
                                    measurement::PhaseKind kind,
                                    const SnapshotCallback& on_snapshot);

  /// A scenario row: the warm-up phase (discarded: its snapshots are delivered tagged kWarmup
  /// and it is part of no test total) when the row has one, then the test phase, each on fresh
  /// connections. `target.delay_*` are taken from the row. A row's request count (its
  /// requestCount column) puts the test phase in request-count mode with that count, in place
  /// of EngineOptions::request_limit. The one definition of that sequence: `benchd run`, the
  /// daemon and `benchd load` all run rows through it.
  ScenarioResult runScenario(const scenario::ScenarioRow& row, const scenario::Workload& workload,
                             RequestTarget target, const SnapshotCallback& on_snapshot,
                             const PhaseHooks& hooks = {});

  /// Ends the running phase early as if its time were up (requests in flight may still finish
  /// within the graceful stop); runScenario then skips the test phase if it has not begun. A
  /// later run* call starts normally (a stop requested while nothing runs is forgotten then).
  /// Async-signal-safe.
  void requestStop() noexcept;

  /// Whether a stop was requested since the last run* call began: after a run, whether it
  /// ended early.
  [[nodiscard]] bool stopRequested() const noexcept { return stop_requested_.load(); }

 private:
  /// runPhase without clearing an earlier stop request, under `options` (options_, or a row's
  /// variant of them).
  measurement::PhaseResult runOnePhase(const scenario::StagePlan& plan, const RequestTarget& target,
                                       measurement::PhaseKind kind,
                                       const SnapshotCallback& on_snapshot,
                                       const EngineOptions& options);

  EngineOptions options_;
  PhaseClock* clock_;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace benchd::loadgen
