#include "manual_phase_clock.hpp"

#include <algorithm>

namespace benchd::loadgen::testing {

PhaseClock::TimePoint ManualPhaseClock::now() const {
  const std::lock_guard lock(mutex_);
  return now_;
}

void ManualPhaseClock::waitOn(std::condition_variable& /*changed*/,
                              std::unique_lock<std::mutex>& lock, TimePoint deadline,
                              std::chrono::nanoseconds poll) {
  // Waits on this clock's own condition instead of `changed`: notifying the caller's condition
  // from advanceTo would need the caller's mutex, which may be gone by then. A notification of
  // `changed` is seen at the next poll, as the contract allows.
  lock.unlock();
  {
    std::unique_lock own(mutex_);
    const auto waiting = deadlines_waited_for_.insert(deadline);
    changed_.notify_all();
    changed_.wait_for(own, poll, [this, deadline] { return now_ >= deadline; });
    deadlines_waited_for_.erase(waiting);
  }
  lock.lock();
}

bool ManualPhaseClock::awaitWaiterFor(TimePoint deadline, std::chrono::milliseconds patience) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, patience,
                           [this, deadline] { return deadlines_waited_for_.contains(deadline); });
}

void ManualPhaseClock::advanceTo(TimePoint to) {
  {
    const std::lock_guard lock(mutex_);
    now_ = std::max(now_, to);
  }
  changed_.notify_all();
}

}  // namespace benchd::loadgen::testing
