#pragma once

#include <poll.h>

#include <chrono>
#include <span>

namespace benchd::threads_poco {

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
[[nodiscard]] PollResult pollUntil(std::span<pollfd> watched,
                                   std::chrono::steady_clock::time_point deadline);

}  // namespace benchd::threads_poco
