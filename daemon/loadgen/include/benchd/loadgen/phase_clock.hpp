#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace benchd::loadgen {

/// The time a phase's coordinator goes by: when the interval boundaries fall, how long each
/// snapshot lasts, when the plan's time is up for the snapshots (the last one waits for the
/// requests still in flight). Injected so that tests can drive the snapshot schedule exactly;
/// production uses steadyPhaseClock().
///
/// The event loops do not use it: their timers, request latencies and the end of their load stay
/// on the steady clock (Asio's), so a clock here costs the hot path nothing. Under a manual clock
/// the loops still end their load after the plan's duration of real time.
///
/// Thread-safety: an implementation must allow now() and waitOn() from the coordinator thread
/// while other threads (a test driving the time) use it.
class PhaseClock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;

  PhaseClock() = default;
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;
  virtual ~PhaseClock() = default;

  [[nodiscard]] virtual TimePoint now() const = 0;

  /// Called with `lock` held on `changed`'s mutex, like condition_variable::wait, and returns
  /// with it held again: once this clock reaches `deadline`, `changed` is notified, or `poll` of
  /// real time has passed, whichever comes first. May return earlier; callers re-check their
  /// condition. An implementation may notice a notification of `changed` only at the next
  /// `poll`.
  virtual void waitOn(std::condition_variable& changed, std::unique_lock<std::mutex>& lock,
                      TimePoint deadline, std::chrono::nanoseconds poll) = 0;
};

/// The steady clock, as a PhaseClock (one stateless instance, shared).
PhaseClock& steadyPhaseClock() noexcept;

}  // namespace benchd::loadgen
