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
/// After an error reply that ends a connection, unread input is discarded for at most this
/// long, so the close does not reset the connection before the client has read the reply.
inline constexpr std::chrono::seconds kDiscardTimeout{2};

}  // namespace benchd::asio_common
