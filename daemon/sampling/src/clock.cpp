#include <benchd/common/epoch_time.hpp>
#include <benchd/sampling/clock.hpp>

namespace benchd::sampling {

namespace {

class SystemClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::steady_clock::time_point steadyNow() const override {
    return std::chrono::steady_clock::now();
  }
  [[nodiscard]] std::int64_t epochMillis() const override { return common::epochMillisNow(); }
};

}  // namespace

std::shared_ptr<const Clock> systemClock() {
  static const std::shared_ptr<const Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

}  // namespace benchd::sampling
