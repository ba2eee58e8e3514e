#pragma once

#include <chrono>
#include <cstdint>

namespace benchd::common {

/// The wall clock as milliseconds since the Unix epoch: what benchd stores and prints as a
/// point in time. Durations are measured with steady_clock instead; code that tests need to
/// control takes a sampling::Clock.
inline std::int64_t epochMillisNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// The same in microseconds, for stamps whose differences matter below a millisecond (the
/// agents' clock probe).
inline std::int64_t epochMicrosNow() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace benchd::common
