#pragma once

#include <chrono>
#include <memory>

namespace benchd::microservice {

/// Monotonic time source for cache expiry. Implementations must be thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  [[nodiscard]] virtual std::chrono::steady_clock::time_point now() const = 0;
};

/// The real std::chrono::steady_clock.
std::shared_ptr<const Clock> steadyClock();

}  // namespace benchd::microservice
