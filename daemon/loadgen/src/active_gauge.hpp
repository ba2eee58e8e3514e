#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace benchd::loadgen {

/// How many VUs are active across every event loop of a phase (closed model: running or
/// finishing their last request; open model: connections busy with a request), and the most
/// there were since the coordinator last looked. The peak is tracked at every change, so a VU
/// burst that rises and falls between two snapshots still shows (a sharp spike ending at 0 on a
/// second boundary).
///
/// Thread-safe and lock-free. A change racing with takePeak counts into one of the two intervals.
class ActiveGauge {
 public:
  void add() noexcept {
    const std::uint32_t now = active_.fetch_add(1, std::memory_order_relaxed) + 1;
    std::uint32_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }
  void remove() noexcept { active_.fetch_sub(1, std::memory_order_relaxed); }

  [[nodiscard]] std::uint32_t current() const noexcept {
    return active_.load(std::memory_order_relaxed);
  }

  /// The most VUs active at once since the previous call (at least the current count); the
  /// next interval starts from the current count.
  std::uint32_t takePeak() noexcept {
    const std::uint32_t now = current();
    return std::max(now, peak_.exchange(now, std::memory_order_relaxed));
  }

 private:
  std::atomic<std::uint32_t> active_{0};
  std::atomic<std::uint32_t> peak_{0};
};

}  // namespace benchd::loadgen
