#include <benchd/sampling/clock.hpp>

namespace benchd::sampling {

namespace {

class SystemClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::steady_clock::time_point steadyNow() const override {
    return std::chrono::steady_clock::now();
  }
  [[nodiscard]] std::int64_t epochMillis() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

std::shared_ptr<const Clock> systemClock() {
  static const std::shared_ptr<const Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

}  // namespace benchd::sampling
