#include <benchd/microservice/clock.hpp>

namespace benchd::microservice {
namespace {

class SteadyClock final : public Clock {
 public:
  [[nodiscard]] std::chrono::steady_clock::time_point now() const override {
    return std::chrono::steady_clock::now();
  }
};

}  // namespace

std::shared_ptr<const Clock> steadyClock() {
  static const auto kInstance = std::make_shared<const SteadyClock>();
  return kInstance;
}

}  // namespace benchd::microservice
