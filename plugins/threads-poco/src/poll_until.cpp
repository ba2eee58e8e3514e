#include "poll_until.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>

namespace benchd::threads_poco {

PollResult pollUntil(std::span<pollfd> watched, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    // Rounded up: a wait rounded down to 0 ms would spin until the deadline.
    const auto left =
        std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return PollResult::kTimedOut;
    const int step = static_cast<int>(std::min<std::int64_t>(left.count(), INT_MAX));
    const int ready = ::poll(watched.data(), watched.size(), step);
    if (ready > 0)
      return PollResult::kReady;
    if (ready < 0 && errno != EINTR)
      return PollResult::kFailed;
  }
}

}  // namespace benchd::threads_poco
