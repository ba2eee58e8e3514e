#pragma once

#include <benchd/loadgen/phase_clock.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

namespace benchd::loadgen::testing {

/// A PhaseClock that moves only when the test says, so a phase's snapshot schedule is exact:
/// the test waits until the coordinator waits for an instant (awaitWaiterFor), then moves the
/// time there (advanceTo). The coordinator sees the loops finish within its 50 ms poll.
///
/// Thread-safe: the coordinator waits on it while the test thread drives it.
class ManualPhaseClock final : public PhaseClock {
 public:
  /// Starts at an arbitrary instant (phases measure from their own start).
  ManualPhaseClock() = default;

  [[nodiscard]] TimePoint now() const override;
  void waitOn(std::condition_variable& changed, std::unique_lock<std::mutex>& lock,
              TimePoint deadline, std::chrono::nanoseconds poll) override;

  /// Test thread: blocks until a thread waits on this clock for exactly `deadline` (true), or
  /// `patience` of real time has passed (false).
  [[nodiscard]] bool awaitWaiterFor(TimePoint deadline,
                                    std::chrono::milliseconds patience = std::chrono::seconds(30));

  /// Moves the time forward to `to` (never back) and wakes the waiting threads.
  void advanceTo(TimePoint to);

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  TimePoint now_{std::chrono::hours(1)};
  std::multiset<TimePoint> deadlines_waited_for_;
};

}  // namespace benchd::loadgen::testing
