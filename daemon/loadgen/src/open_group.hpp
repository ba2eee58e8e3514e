#pragma once

#include "arrival_timeline.hpp"
#include "h2_client_connection.hpp"
#include "loop_context.hpp"
#include "prepared_request.hpp"
#include "token_schedule.hpp"
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
  /// `tokens` is the global rate cap, or nullptr. `plan`, `mix`, `timeline` and `tokens`
  /// outlive the group.
  OpenGroup(LoopContext& loop, const scenario::SubScenarioPlan& plan, const RequestMix& mix,
            const ArrivalTimeline& timeline, TokenSchedule* tokens, ArrivalOverflow overflow,
            std::uint32_t loop_index, std::uint32_t loop_count);

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
  /// Sends arrival `intended` on the free `user`, after waiting for a rate-cap slot when capped
  /// (the wait is part of its corrected latency). False, with `user` untouched, when request-count
  /// mode has no request left.
  bool dispatch(VirtualUser& user, VirtualUser::TimePoint intended);
  /// A dispatched VU that will not send after all (the phase ended while it waited for a slot).
  void abandon(VirtualUser& user);

  /// What a VU waiting for a rate-cap slot sends when the slot comes.
  struct Waiting {
    const PreparedRequest* request = nullptr;
    VirtualUser::TimePoint intended{};
  };

  LoopContext& loop_;
  const scenario::SubScenarioPlan& plan_;
  const RequestMix& mix_;
  const ArrivalTimeline& timeline_;
  TokenSchedule* tokens_;
  ArrivalOverflow overflow_;
  std::uint32_t loop_count_;
  std::uint64_t next_arrival_;  ///< global index of this loop's next unsent arrival
  std::uint64_t arrival_count_;
  /// Declared before users_: the VUs' connections outlive them.
  H2ConnectionPool connections_;
  /// The pool: one VU per connection, or streams_per_connection per connection under HTTP/2.
  std::vector<std::unique_ptr<VirtualUser>> users_;
  std::vector<VirtualUser*> free_;
  std::vector<Waiting> waiting_;  ///< by VU index
  boost::asio::steady_timer arrival_timer_;
  bool timer_armed_ = false;
  std::uint32_t busy_ = 0;
  bool ended_ = false;
};

}  // namespace benchd::loadgen
