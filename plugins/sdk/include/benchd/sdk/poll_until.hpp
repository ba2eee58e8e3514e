#pragma once
// A blocking plugin thread's wait on a few descriptors with a deadline (threads-poco's reads
// and waits, the Poco nested-call client's wait for an answer, libmicrohttpd's delays).

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <span>

namespace benchd::sdk {

/// What pollUntil() saw.
enum class PollResult {
  kReady,     ///< at least one descriptor has revents set
  kTimedOut,  ///< the deadline passed first
  kFailed,    ///< poll() failed (errno says why)
};

/// poll() on `watched` until one of them is ready or `deadline` passes: one system call per
/// wait, taking no descriptor of its own (Poco's Socket::poll creates an epoll instance per
/// call). Signals (EINTR) and waits longer than poll()'s int of milliseconds are waited out.
/// Blocks the calling thread only; `watched` is the caller's.
[[nodiscard]] inline PollResult pollUntil(std::span<pollfd> watched,
                                          std::chrono::steady_clock::time_point deadline) {
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

/// Sleeps `delay` on the calling thread unless the client on `client_fd` leaves first: true when
/// the whole delay passed, false when the client is gone (or the descriptor is unusable, so
/// nobody can be answered on it). POLLRDHUP, not POLLIN: bytes the client pipelines must not end
/// the wait, only the end of its sending side (or POLLHUP and POLLERR, which a stop's
/// shutdown(2) raises and poll always reports).
[[nodiscard]] inline bool sleepWatchingClient(int client_fd, std::chrono::milliseconds delay) {
  pollfd watched{client_fd, POLLRDHUP, 0};
  switch (pollUntil(std::span(&watched, 1), std::chrono::steady_clock::now() + delay)) {
    case PollResult::kTimedOut:
      return true;
    case PollResult::kFailed:
      return false;
    case PollResult::kReady:
      break;
  }
  return (watched.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) == 0;
}

}  // namespace benchd::sdk
