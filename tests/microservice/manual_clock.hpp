#pragma once

#include <benchd/microservice/clock.hpp>

#include <atomic>
#include <chrono>

namespace benchd::microservice::testing {

/// A clock that only moves when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::steady_clock::time_point now() const override {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(ticks_.load(std::memory_order_acquire)));
  }

  void advance(std::chrono::steady_clock::duration by) {
    ticks_.fetch_add(by.count(), std::memory_order_acq_rel);
  }

 private:
  std::atomic<std::chrono::steady_clock::rep> ticks_{0};
};

}  // namespace benchd::microservice::testing
