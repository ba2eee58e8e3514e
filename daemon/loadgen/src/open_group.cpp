#include "open_group.hpp"

#include "loop_share.hpp"

#include <algorithm>
#include <iterator>

namespace benchd::loadgen {

OpenGroup::OpenGroup(LoopContext& loop, const scenario::SubScenarioPlan& plan,
                     const RequestMix& mix, const ArrivalTimeline& timeline, TokenSchedule* tokens,
                     ArrivalOverflow overflow, std::uint32_t loop_index, std::uint32_t loop_count)
    : loop_(loop),
      plan_(plan),
      mix_(mix),
      timeline_(timeline),
      tokens_(tokens),
      overflow_(overflow),
      loop_count_(loop_count),
      next_arrival_(loop_index),
      arrival_count_(timeline.arrivalCount()),
      connections_(loop,
                   static_cast<std::uint32_t>(loopShare(plan.connections, loop_index, loop_count))),
      arrival_timer_(loop.io) {
  const std::uint32_t members = connections_.slots();
  users_.reserve(members);
  free_.reserve(members);
  waiting_.resize(members);
  for (std::uint32_t local = 0; local < members; ++local) {
    users_.push_back(
        std::make_unique<VirtualUser>(loop, *this, local, connections_.forSlot(local)));
  }
  // Taken from the back: the lowest-numbered connections are used first and stay warm.
  std::transform(users_.rbegin(), users_.rend(), std::back_inserter(free_),
                 [](const std::unique_ptr<VirtualUser>& user) { return user.get(); });
}

VirtualUser::TimePoint OpenGroup::dueTimeOf(std::uint64_t arrival) const noexcept {
  return loop_.phase_start +
         std::chrono::duration_cast<VirtualUser::Clock::duration>(timeline_.timeOf(arrival));
}

void OpenGroup::start() {
  armTimer();
}

void OpenGroup::armTimer() {
  if (ended_ || timer_armed_ || !hasArrivalLeft()) {
    return;
  }
  timer_armed_ = true;
  arrival_timer_.expires_at(dueTimeOf(next_arrival_));
  arrival_timer_.async_wait([this](const boost::system::error_code& error) {
    timer_armed_ = false;
    if (!error && !ended_) {
      onArrivalTimer();
    }
  });
}

void OpenGroup::onArrivalTimer() {
  const auto now = VirtualUser::Clock::now();
  dropStaleArrivals(now);
  while (hasArrivalLeft()) {
    const auto due = dueTimeOf(next_arrival_);
    if (due > now) {
      break;
    }
    if (free_.empty()) {
      if (overflow_ == ArrivalOverflow::kWait) {
        // Waits for the next connection that frees up (onRequestDone), which re-arms the timer.
        return;
      }
      ++loop_.stats.counters.dropped_arrivals;
    } else if (dispatch(*free_.back(), due)) {
      free_.pop_back();
    }
    next_arrival_ += loop_count_;
  }
  armTimer();
}

void OpenGroup::dropStaleArrivals(VirtualUser::TimePoint now) {
  if (overflow_ != ArrivalOverflow::kWait) {
    return;
  }
  while (hasArrivalLeft() && now - dueTimeOf(next_arrival_) > loop_.request_timeout) {
    ++loop_.stats.counters.dropped_arrivals;
    next_arrival_ += loop_count_;
  }
}

bool OpenGroup::dispatch(VirtualUser& user, VirtualUser::TimePoint intended) {
  if (loop_.budget != nullptr && !loop_.budget->tryTake()) {
    return false;
  }
  ++busy_;
  loop_.active_vus.add();
  const PreparedRequest& request = mix_.single() ? mix_.pick(0.0) : mix_.pick(loop_.uniform());
  if (tokens_ != nullptr) {
    const auto now = VirtualUser::Clock::now();
    const auto slot = loop_.phase_start + tokens_->acquire(now - loop_.phase_start);
    if (slot > now) {
      waiting_[user.index()] = {&request, intended};
      user.pauseUntil(slot);
      return true;
    }
  }
  user.startRequest(request, intended);
  return true;
}

void OpenGroup::abandon(VirtualUser& user) {
  --busy_;
  loop_.active_vus.remove();
  ++loop_.stats.counters.dropped_arrivals;
  if (loop_.budget != nullptr) {
    loop_.budget->ended();
  }
  user.close();
}

void OpenGroup::onRequestDone(VirtualUser& user) {
  --busy_;
  loop_.active_vus.remove();
  if (ended_) {
    user.close();
    return;
  }
  if (overflow_ == ArrivalOverflow::kWait) {
    const auto now = VirtualUser::Clock::now();
    dropStaleArrivals(now);
    if (hasArrivalLeft()) {
      const auto due = dueTimeOf(next_arrival_);
      if (due <= now) {
        next_arrival_ += loop_count_;
        if (dispatch(user, due)) {
          ++loop_.stats.counters.late_arrivals;
          return;
        }
      }
    }
    free_.push_back(&user);
    armTimer();
    return;
  }
  free_.push_back(&user);
}

void OpenGroup::onPauseEnded(VirtualUser& user) {
  // The rate-cap slot came (endLoad cancels the pauses of a finished phase).
  const Waiting& waiting = waiting_[user.index()];
  user.startRequest(*waiting.request, waiting.intended);
}

void OpenGroup::endLoad(VirtualUser::TimePoint now) {
  if (ended_) {
    return;
  }
  ended_ = true;
  arrival_timer_.cancel();
  while (hasArrivalLeft() && dueTimeOf(next_arrival_) <= now) {
    ++loop_.stats.counters.dropped_arrivals;
    next_arrival_ += loop_count_;
  }
  for (VirtualUser* user : free_) {
    user->close();
  }
  free_.clear();
  const auto grace = now + plan_.definition.graceful_stop;
  for (const auto& user : users_) {
    if (user->state() == VirtualUser::State::kPausing) {
      user->cancelPause();
      abandon(*user);
    } else if (user->busy()) {
      user->setInterruptDeadline(grace);
    }
  }
}

void OpenGroup::enforceDeadlines(VirtualUser::TimePoint now) noexcept {
  if (busy_ == 0) {
    return;
  }
  for (const auto& user : users_) {
    user->enforceDeadlines(now);
  }
}

}  // namespace benchd::loadgen
