#include "closed_group.hpp"

#include "loop_share.hpp"

#include <algorithm>
#include <cmath>

namespace benchd::loadgen {
namespace {

/// floor(target), tolerant of a value a hair below a whole number.
std::uint64_t wholeTarget(double target) {
  return target <= 0.0 ? 0 : static_cast<std::uint64_t>(std::floor(target + 1e-9));
}

}  // namespace

ClosedGroup::ClosedGroup(LoopContext& loop, const scenario::SubScenarioPlan& plan,
                         const RequestMix& mix, TokenSchedule* tokens, std::uint32_t loop_index,
                         std::uint32_t loop_count)
    : loop_(loop),
      plan_(plan),
      mix_(mix),
      tokens_(tokens),
      loop_index_(loop_index),
      loop_count_(loop_count),
      connections_(
          loop, static_cast<std::uint32_t>(loopShare(plan.connections, loop_index, loop_count))) {
  const std::uint32_t members = connections_.slots();
  users_.reserve(members);
  for (std::uint32_t local = 0; local < members; ++local) {
    users_.push_back(
        std::make_unique<VirtualUser>(loop, *this, local, connections_.forSlot(local)));
  }
  modes_.assign(members, Mode::kStopped);
}

void ClosedGroup::followTarget(VirtualUser::TimePoint now) {
  if (ended_) {
    return;
  }
  const auto elapsed =
      std::chrono::duration_cast<std::chrono::milliseconds>(now - loop_.phase_start);
  const std::uint64_t global =
      std::min<std::uint64_t>(wholeTarget(plan_.targetAt(elapsed)), plan_.connections);
  setDesired(static_cast<std::uint32_t>(loopShare(global, loop_index_, loop_count_)) *
                 loop_.streams_per_connection,
             now);
}

void ClosedGroup::setDesired(std::uint32_t desired, VirtualUser::TimePoint now) {
  desired = std::min<std::uint32_t>(desired, static_cast<std::uint32_t>(users_.size()));
  for (std::uint32_t local = desired_; local < desired; ++local) {
    VirtualUser& user = *users_[local];
    if (modes_[local] == Mode::kStopped) {
      modes_[local] = Mode::kRunning;
      ++active_;
      loop_.active_vus.add();
      beginIteration(user);
    } else if (modes_[local] == Mode::kStopping) {
      modes_[local] = Mode::kRunning;
      user.setInterruptDeadline(std::nullopt);
    }
  }
  const auto grace = now + plan_.definition.graceful_ramp_down;
  for (std::uint32_t local = desired; local < desired_; ++local) {
    if (modes_[local] == Mode::kRunning) {
      retire(*users_[local], grace);
    }
  }
  desired_ = desired;
}

void ClosedGroup::endLoad(VirtualUser::TimePoint now) {
  if (ended_) {
    return;
  }
  ended_ = true;
  const auto grace = now + plan_.definition.graceful_stop;
  for (std::uint32_t local = 0; local < users_.size(); ++local) {
    if (modes_[local] == Mode::kRunning) {
      retire(*users_[local], grace);
    } else if (modes_[local] == Mode::kStopping) {
      users_[local]->setInterruptDeadline(grace);
    }
  }
  desired_ = 0;
}

void ClosedGroup::retire(VirtualUser& user, VirtualUser::TimePoint grace_deadline) {
  if (user.state() == VirtualUser::State::kPausing) {
    user.cancelPause();
  }
  if (!user.busy()) {
    stopNow(user);
    return;
  }
  modes_[user.index()] = Mode::kStopping;
  user.setInterruptDeadline(grace_deadline);
}

void ClosedGroup::stopNow(VirtualUser& user) {
  user.close();
  user.setInterruptDeadline(std::nullopt);
  if (modes_[user.index()] != Mode::kStopped) {
    modes_[user.index()] = Mode::kStopped;
    --active_;
    loop_.active_vus.remove();
  }
}

void ClosedGroup::enforceDeadlines(VirtualUser::TimePoint now) noexcept {
  for (const auto& user : users_) {
    user->enforceDeadlines(now);
  }
}

void ClosedGroup::beginIteration(VirtualUser& user) {
  if (tokens_ != nullptr) {
    const auto now = VirtualUser::Clock::now();
    const auto slot = loop_.phase_start + tokens_->acquire(now - loop_.phase_start);
    if (slot > now) {
      user.tag = kWaitingForSlot;
      user.pauseUntil(slot);
      return;
    }
  }
  sendNext(user);
}

void ClosedGroup::sendNext(VirtualUser& user) {
  if (loop_.budget != nullptr && !loop_.budget->tryTake()) {
    // Request-count mode with every request sent: this VU is done; the phase ends when the last
    // request in flight has.
    stopNow(user);
    return;
  }
  const PreparedRequest& request = mix_.single() ? mix_.pick(0.0) : mix_.pick(loop_.uniform());
  user.startRequest(request, std::nullopt);
}

void ClosedGroup::onRequestDone(VirtualUser& user) {
  if (modes_[user.index()] != Mode::kRunning) {
    stopNow(user);
    return;
  }
  if (const auto& think = plan_.definition.think_time) {
    const double spread = static_cast<double>((think->max - think->min).count());
    const auto pause = std::chrono::duration_cast<std::chrono::nanoseconds>(
        think->min + std::chrono::duration<double, std::milli>(spread * loop_.uniform()));
    user.tag = kThinking;
    user.pauseUntil(VirtualUser::Clock::now() + pause);
    return;
  }
  beginIteration(user);
}

void ClosedGroup::onPauseEnded(VirtualUser& user) {
  if (modes_[user.index()] != Mode::kRunning) {
    stopNow(user);
    return;
  }
  if (user.tag == kWaitingForSlot) {
    sendNext(user);
  } else {
    beginIteration(user);
  }
}

}  // namespace benchd::loadgen
