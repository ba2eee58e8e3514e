#include "phase_sync.hpp"

namespace benchd::loadgen {

void PhaseSync::reportFinished() {
  {
    const std::lock_guard lock(mutex_);
    ++finished_loops_;
  }
  changed_.notify_all();
}

void PhaseSync::contribute(const IntervalStats& stats, std::uint32_t active_vus) {
  {
    const std::lock_guard lock(mutex_);
    merged_.add(stats);
    active_vus_ += active_vus;
    --pending_contributions_;
  }
  changed_.notify_all();
}

bool PhaseSync::waitUntil(PhaseClock::TimePoint deadline, const std::atomic<bool>& stop) {
  constexpr std::chrono::milliseconds kStopPollPeriod{50};
  std::unique_lock lock(mutex_);
  for (;;) {
    if (finished_loops_ == loop_count_) {
      return true;
    }
    if (clock_.now() >= deadline || stop.load(std::memory_order_relaxed)) {
      return false;
    }
    clock_.waitOn(changed_, lock, deadline, kStopPollPeriod);
  }
}

bool PhaseSync::allFinished() {
  const std::lock_guard lock(mutex_);
  return finished_loops_ == loop_count_;
}

void PhaseSync::beginHarvest() {
  const std::lock_guard lock(mutex_);
  merged_.reset();
  active_vus_ = 0;
  pending_contributions_ = loop_count_;
}

void PhaseSync::awaitHarvest() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return pending_contributions_ == 0; });
}

}  // namespace benchd::loadgen
