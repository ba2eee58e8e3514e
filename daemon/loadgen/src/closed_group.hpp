#pragma once

#include "h2_client_connection.hpp"
#include "loop_context.hpp"
#include "prepared_request.hpp"
#include "token_schedule.hpp"
#include "virtual_user.hpp"

#include <benchd/scenario/stage_plan.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace benchd::loadgen {

/// One event loop's part of a closed-model sub-scenario (constant-vus or ramping-vus): the VUs
/// whose global number g has g % loop_count == loop_index. VU g runs while g is below the
/// plan's target (floor of targetAt), so the loops together follow the target. A running VU
/// loops: [wait for a rate-cap slot], request, [think time]. A VU removed by a falling target
/// finishes its request within graceful_ramp_down and is then closed; at the phase end all do,
/// within graceful_stop.
///
/// Thread-safety: its loop's thread only.
class ClosedGroup final : public VirtualUser::Owner {
 public:
  /// `tokens` is the global rate cap, or nullptr. `plan`, `mix` and `tokens` outlive the group.
  ClosedGroup(LoopContext& loop, const scenario::SubScenarioPlan& plan, const RequestMix& mix,
              TokenSchedule* tokens, std::uint32_t loop_index, std::uint32_t loop_count);

  /// Starts or stops VUs to match the target at `now` (the first call starts the phase).
  /// Ignored after endLoad.
  void followTarget(VirtualUser::TimePoint now);
  /// The phase is over: no new requests; requests in flight may finish until
  /// now + graceful_stop.
  void endLoad(VirtualUser::TimePoint now);
  void enforceDeadlines(VirtualUser::TimePoint now) noexcept;

  /// VUs not stopped (running, or finishing their last request).
  [[nodiscard]] std::uint32_t activeVus() const noexcept { return active_; }
  /// True once endLoad ran and every VU is closed.
  [[nodiscard]] bool finished() const noexcept { return ended_ && active_ == 0; }

  void onRequestDone(VirtualUser& user) override;
  void onPauseEnded(VirtualUser& user) override;

 private:
  enum class Mode : std::uint8_t { kStopped, kRunning, kStopping };
  /// Why a running VU pauses (VirtualUser::tag).
  enum PauseReason : std::uint8_t { kThinking = 1, kWaitingForSlot = 2 };

  void setDesired(std::uint32_t desired, VirtualUser::TimePoint now);
  void beginIteration(VirtualUser& user);
  void sendNext(VirtualUser& user);
  void stopNow(VirtualUser& user);
  /// Asks a running VU to stop: at once when it pauses, else after its request (deadline `grace`).
  void retire(VirtualUser& user, VirtualUser::TimePoint grace_deadline);

  LoopContext& loop_;
  const scenario::SubScenarioPlan& plan_;
  const RequestMix& mix_;
  TokenSchedule* tokens_;
  std::uint32_t loop_index_;
  std::uint32_t loop_count_;
  /// Declared before users_: the VUs' connections outlive them.
  H2ConnectionPool connections_;
  /// Local index m is global m * count + index; under HTTP/2 the VUs are streams_per_connection
  /// slots per connection (H2ConnectionPool), and the plan's targets count connections.
  std::vector<std::unique_ptr<VirtualUser>> users_;
  std::vector<Mode> modes_;
  std::uint32_t desired_ = 0;
  std::uint32_t active_ = 0;
  bool ended_ = false;
};

}  // namespace benchd::loadgen
