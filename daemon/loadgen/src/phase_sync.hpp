#pragma once

#include "active_gauge.hpp"
#include "interval_stats.hpp"

#include <benchd/loadgen/phase_clock.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace benchd::loadgen {

/// The meeting point of a phase's coordinator thread and its event-loop threads: the loops report
/// when their load has finished and hand in their interval statistics when asked; the coordinator
/// waits for either, by the coordinator's clock. Thread-safe.
class PhaseSync {
 public:
  /// `clock` must outlive this.
  PhaseSync(std::uint32_t loop_count, PhaseClock& clock) : loop_count_(loop_count), clock_(clock) {}

  /// Loop thread: its load has ended and every connection is closed. Once per loop.
  void reportFinished();
  /// Loop thread, during a harvest: adds its interval (the loop resets its own afterwards).
  void contribute(const IntervalStats& stats, std::uint32_t active_vus);

  /// Coordinator: waits until the clock reaches `deadline`, until every loop has finished, or
  /// until `stop` is set (checked every 50 ms, since a signal handler may set it). True when all
  /// loops finished.
  bool waitUntil(PhaseClock::TimePoint deadline, const std::atomic<bool>& stop);
  [[nodiscard]] bool allFinished();

  /// Coordinator: expects one contribute() per loop from now on.
  void beginHarvest();
  /// Coordinator: waits for every contribution; `merged` and `active_vus` then hold the sums
  /// until the next beginHarvest (which resets them).
  void awaitHarvest();
  [[nodiscard]] const IntervalStats& merged() const noexcept { return merged_; }
  [[nodiscard]] std::uint32_t activeVus() const noexcept { return active_vus_; }

  /// The phase's active-VU count, kept by the loops as VUs start and stop (thread-safe).
  [[nodiscard]] ActiveGauge& activeGauge() noexcept { return gauge_; }

 private:
  const std::uint32_t loop_count_;
  PhaseClock& clock_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::uint32_t finished_loops_ = 0;
  std::uint32_t pending_contributions_ = 0;
  IntervalStats merged_;
  std::uint32_t active_vus_ = 0;
  ActiveGauge gauge_;
};

}  // namespace benchd::loadgen
