#include <benchd/loadgen/phase_clock.hpp>

#include <algorithm>

namespace benchd::loadgen {
namespace {

class SteadyPhaseClock final : public PhaseClock {
 public:
  [[nodiscard]] TimePoint now() const override { return std::chrono::steady_clock::now(); }

  void waitOn(std::condition_variable& changed, std::unique_lock<std::mutex>& lock,
              TimePoint deadline, std::chrono::nanoseconds poll) override {
    changed.wait_until(lock, std::min(deadline, std::chrono::steady_clock::now() + poll));
  }
};

}  // namespace

PhaseClock& steadyPhaseClock() noexcept {
  static SteadyPhaseClock clock;
  return clock;
}

}  // namespace benchd::loadgen
