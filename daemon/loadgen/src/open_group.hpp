#pragma once

#include "arrival_timeline.hpp"
#include "loop_context.hpp"
#include "prepared_request.hpp"
#include "virtual_user.hpp"

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace benchd::loadgen {

/// One event loop's part of an open-model sub-scenario (constant- or ramping-arrival-rate):
/// arrivals k with k % loop_count == loop_index of the shared time line, served by this loop's
/// part of the connection pool (connections opened on first use and kept alive). An arrival is
/// sent when it is due, timed from its intended time as well as from its actual send; when no
/// connection is free it is dropped or waits, as ArrivalOverflow says.
///
/// Thread-safety: its loop's thread only.
class OpenGroup final : public VirtualUser::Owner {
 public:
  /// `plan`, `mix` and `timeline` outlive the group.
  OpenGroup(LoopContext& loop, const scenario::SubScenarioPlan& plan, const RequestMix& mix,
            const ArrivalTimeline& timeline, ArrivalOverflow overflow, std::uint32_t loop_index,
            std::uint32_t loop_count);

  /// Starts the arrival schedule.
  void start();
  /// The phase is over: arrivals due but not sent are dropped; requests in flight may finish
  /// until now + graceful_stop; idle connections close.
  void endLoad(VirtualUser::TimePoint now);
  void enforceDeadlines(VirtualUser::TimePoint now) noexcept;

  /// Connections busy with a request.
  [[nodiscard]] std::uint32_t activeVus() const noexcept { return busy_; }
  [[nodiscard]] bool finished() const noexcept { return ended_ && busy_ == 0; }

  void onRequestDone(VirtualUser& user) override;
  void onPauseEnded(VirtualUser& user) override;

 private:
  [[nodiscard]] bool hasArrivalLeft() const noexcept { return next_arrival_ < arrival_count_; }
  [[nodiscard]] VirtualUser::TimePoint dueTimeOf(std::uint64_t arrival) const noexcept;
  void onArrivalTimer();
  void armTimer();
  /// Drops the due arrivals that waited longer than the request timeout (kWait only).
  void dropStaleArrivals(VirtualUser::TimePoint now);
  void dispatch(VirtualUser& user, VirtualUser::TimePoint intended);

  LoopContext& loop_;
  const scenario::SubScenarioPlan& plan_;
  const RequestMix& mix_;
  const ArrivalTimeline& timeline_;
  ArrivalOverflow overflow_;
  std::uint32_t loop_count_;
  std::uint64_t next_arrival_;  ///< global index of this loop's next unsent arrival
  std::uint64_t arrival_count_;
  std::vector<std::unique_ptr<VirtualUser>> users_;
  std::vector<VirtualUser*> free_;
  boost::asio::steady_timer arrival_timer_;
  bool timer_armed_ = false;
  std::uint32_t busy_ = 0;
  bool ended_ = false;
};

}  // namespace benchd::loadgen
