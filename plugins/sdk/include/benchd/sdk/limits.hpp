#pragma once
// The limits every approach plugin shares, defined once so that the four servers bound the
// same resources in the same way and a benchmark compares concurrency, not configurations.
// Each limit states why it has its value; README.md ("Limits") lists them as a table. Error
// texts quote these constants rather than repeating the numbers.
//
// The set is coherent by construction, and the static_asserts at the end hold it so:
//  - a nested call may wait as long as the delay it forwards: its response timeout is the
//    delay plus kUpstreamResponseMargin, so the longest allowed delay never ends in a 502;
//  - a pooled upstream connection is retired by the client (kUpstreamIdleTimeout, checked at
//    least every kUpstreamIdleSweepInterval) before the server side closes it as an idle
//    keep-alive connection (kIoTimeout), so pooled connections do not sit in CLOSE_WAIT.

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace benchd::sdk {

// ---- Request parameters --------------------------------------------------------------------

/// Largest `delayCallDepth`: bounds the recursion of nested calls (each level holds one
/// inbound and one upstream connection of the same worker) so a typo cannot exhaust it.
inline constexpr int kMaxDelayCallDepth = 64;
/// Largest `delayInMillis` (1 h): long enough for any benchmark's slow-backend model, short
/// enough that a typo cannot park a connection for days.
inline constexpr std::int64_t kMaxDelayMillis = 3'600'000;
/// Request bodies above this (1 MiB) get 413: a movie document is a few hundred bytes, and a
/// bound keeps a hostile client from making the server buffer without limit.
inline constexpr std::size_t kMaxRequestBodyBytes = std::size_t{1024} * 1024;
/// A request's header section (request line and fields, with their line ends) above this
/// (8 KiB) gets 400: Beast's default, which the Asio plugins always had, now stated once and
/// held to every plugin. The service's requests need a few hundred bytes.
inline constexpr std::size_t kMaxRequestHeaderBytes = std::size_t{8} * 1024;

// ---- Inbound connections -------------------------------------------------------------------

/// Reads, writes and idle keep-alive connections time out after this (the original service's
/// 60 s client and server timeouts).
inline constexpr std::chrono::seconds kIoTimeout{60};
/// After an error reply that ends a connection, unread input is discarded for at most this
/// long, so the close does not reset the connection before the client has read the reply.
inline constexpr std::chrono::seconds kDiscardTimeout{2};
/// How long the listener waits before accepting again after the process ran out of descriptors
/// (EMFILE, ENFILE) or kernel memory (ENOBUFS, ENOMEM). Accepting again at once fails again at
/// once: the pending connection stays in the backlog, so the listener stays readable and the
/// accepting thread would spin at 100 % of a core. 50 ms is long enough to cost nothing and
/// short enough that a freed descriptor is used at once by human standards; the waiting
/// connections are not lost.
inline constexpr std::chrono::milliseconds kAcceptBackoff{50};

// ---- Nested calls (upstream connections to the server's own endpoint) ----------------------

/// Connecting to the server's own endpoint for a nested call (the original's 20 s).
inline constexpr std::chrono::seconds kConnectTimeout{20};
/// Upper bound on upstream connections per worker, like the original's client pool.
inline constexpr std::int64_t kUpstreamPoolCapacity = 65'000;
/// What a nested call may take beyond the delay it forwards: the callee's own work and its
/// queueing under load. 60 s, the original's client timeout, which the nested call had as its
/// whole budget before the timeout grew with the delay.
inline constexpr std::chrono::seconds kUpstreamResponseMargin{60};
/// An idle pooled upstream connection is closed after this. Below kIoTimeout, after which the
/// server closes an idle keep-alive connection itself: the client retires its connections
/// first, so none is left half-closed (CLOSE_WAIT) holding a descriptor, and a connection
/// handed out is unlikely to be closed by the server while the request is on its way.
inline constexpr std::chrono::seconds kUpstreamIdleTimeout{30};
/// How often a pool closes expired idle connections when nobody takes any (after a burst,
/// or when nested calls stop altogether). A connection lives at most kUpstreamIdleTimeout +
/// kUpstreamIdleSweepInterval idle, still below kIoTimeout.
inline constexpr std::chrono::seconds kUpstreamIdleSweepInterval{5};

/// The response timeout of a nested call that forwards `delay_millis`: the callee waits that
/// long before it answers, so the caller waits the delay plus `margin` (kUpstreamResponseMargin
/// unless a test shortens it, sdk::upstreamResponseMargin()). The margin applies once, not per
/// level: every level of a chain forwards the same delay and only the innermost waits it, so
/// each level's timeout covers everything beneath it. Negative delays count as 0, delays above
/// kMaxDelayMillis as kMaxDelayMillis.
constexpr std::chrono::milliseconds upstreamResponseTimeout(
    std::int64_t delay_millis, std::chrono::milliseconds margin = kUpstreamResponseMargin) {
  const std::int64_t bounded =
      delay_millis < 0 ? 0 : (delay_millis > kMaxDelayMillis ? kMaxDelayMillis : delay_millis);
  return std::chrono::milliseconds(bounded) + margin;
}

static_assert(upstreamResponseTimeout(kMaxDelayMillis) > std::chrono::milliseconds(kMaxDelayMillis),
              "a nested call must outwait the longest delay it may forward");
static_assert(upstreamResponseTimeout(0) == kUpstreamResponseMargin);
static_assert(kUpstreamIdleTimeout + kUpstreamIdleSweepInterval < kIoTimeout,
              "pooled connections must be retired before the server closes them as idle");

}  // namespace benchd::sdk
