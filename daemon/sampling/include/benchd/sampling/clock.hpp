#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

namespace benchd::sampling {

/// The two time sources a sampler needs: a monotonic one for interval lengths and the wall
/// clock for the sample's timestamp. Injected so tests control both. Implementations must be
/// thread-safe (one clock may serve several samplers on different threads).
class Clock {
 public:
  virtual ~Clock() = default;
  [[nodiscard]] virtual std::chrono::steady_clock::time_point steadyNow() const = 0;
  [[nodiscard]] virtual std::int64_t epochMillis() const = 0;
};

/// std::chrono::steady_clock and std::chrono::system_clock.
[[nodiscard]] std::shared_ptr<const Clock> systemClock();

}  // namespace benchd::sampling
