#pragma once

#include "closed_group.hpp"
#include "interval_stats.hpp"
#include "loop_context.hpp"
#include "open_group.hpp"
#include "phase_setup.hpp"
#include "phase_sync.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace benchd::loadgen {

/// One event-loop thread of a phase: its io_context, its share of every sub-scenario's VUs, its
/// interval statistics, and a 10 ms control tick that follows ramping targets, ends the load at
/// the phase end and enforces request deadlines.
///
/// Thread-safety: run() is the thread's body; the post*() calls may come from any thread (they
/// post to the loop); nothing else is touched from outside.
class LoopWorker {
 public:
  LoopWorker(const PhaseSetup& setup, std::uint32_t loop_index, PhaseSync& sync);
  LoopWorker(const LoopWorker&) = delete;
  LoopWorker& operator=(const LoopWorker&) = delete;

  /// Starts the groups and runs the loop until postFinish() was called and everything ended.
  void run();

  /// Hands this loop's interval statistics to `sync_` and starts a new interval.
  void postHarvest();
  /// Ends the load now, as at the phase end.
  void postEndLoad();
  /// Lets run() return once the load has finished (call after the final harvest).
  void postFinish();

 private:
  using TimePoint = std::chrono::steady_clock::time_point;

  void armControlTimer();
  void onControlTick();
  void endLoad(TimePoint now);
  [[nodiscard]] bool loadFinished() const noexcept;
  [[nodiscard]] std::uint32_t activeVus() const noexcept;
  void enforceDeadlines(TimePoint now) noexcept;

  const PhaseSetup& setup_;
  PhaseSync& sync_;
  boost::asio::io_context io_{1};
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
  IntervalStats stats_;
  LoopContext context_;
  std::vector<std::unique_ptr<ClosedGroup>> closed_groups_;
  std::vector<std::unique_ptr<OpenGroup>> open_groups_;
  boost::asio::steady_timer control_timer_;
  std::chrono::nanoseconds sweep_period_;
  TimePoint next_sweep_{};
  bool ramping_ = false;
  bool ended_ = false;
  bool finished_reported_ = false;
};

}  // namespace benchd::loadgen
