#pragma once

#include <chrono>
#include <cstdint>

namespace benchd::asio_common {

/// Reads, writes, upstream responses and idle keep-alive connections time out after this
/// (the original service's 60 s client and server timeouts).
inline constexpr std::chrono::seconds kIoTimeout{60};
/// Connecting to the server's own endpoint for a nested call (the original's 20 s).
inline constexpr std::chrono::seconds kConnectTimeout{20};
/// Upper bound on upstream connections per worker, like the original's client pool.
inline constexpr std::int64_t kUpstreamPoolCapacity = 65'000;

/// How long the listener waits before accepting again after the process ran out of descriptors
/// (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM). Accepting again at once fails again at
/// once: the pending connection stays in the backlog, so the listener stays readable and loop 0
/// would spin at 100 % of a core. 50 ms is long enough to cost nothing and short enough that a
/// freed descriptor is used at once by human standards; the waiting connections are not lost.
inline constexpr std::chrono::milliseconds kAcceptBackoff{50};
/// After an error reply that ends a connection, unread input is discarded for at most this
/// long, so the close does not reset the connection before the client has read the reply.
inline constexpr std::chrono::seconds kDiscardTimeout{2};

}  // namespace benchd::asio_common
