#pragma once
// The limits every approach plugin shares, for C++: typed constants made from the macros of
// benchd/limits.h, which defines each value once, for C and C++, and says why it has it.
// Defined once so that the servers bound the same resources in the same way and a benchmark
// compares concurrency, not configurations. plugins/sdk/CONTRACT.md ("Limits") lists them as
// a table. Error texts quote these constants rather than repeating the numbers.
//
// The set is coherent by construction, and the static_asserts at the end hold it so:
//  - a nested call may wait as long as the delay it forwards: its response timeout is the
//    delay plus kUpstreamResponseMargin, so the longest allowed delay never ends in a 502;
//  - a pooled upstream connection is retired by the client (kUpstreamIdleTimeout, checked at
//    least every kUpstreamIdleSweepInterval) before the server side closes it as an idle
//    keep-alive connection (kIoTimeout), so pooled connections do not sit in CLOSE_WAIT;
//  - every constant in seconds is its macro's milliseconds exactly.

#include <benchd/limits.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace benchd::sdk {

// ---- Request parameters --------------------------------------------------------------------

/// Largest `delayCallDepth` (BENCHD_MAX_DELAY_CALL_DEPTH): bounds the recursion of nested
/// calls, each level holding one inbound and one upstream connection of the same worker.
inline constexpr int kMaxDelayCallDepth = BENCHD_MAX_DELAY_CALL_DEPTH;
/// Largest `delayInMillis` (BENCHD_MAX_DELAY_MILLIS, 1 h): long enough for any slow-backend
/// model, short enough that a typo cannot park a connection for days.
inline constexpr std::int64_t kMaxDelayMillis = BENCHD_MAX_DELAY_MILLIS;
/// Request bodies above this (BENCHD_MAX_REQUEST_BODY_BYTES, 1 MiB) get 413: a movie document
/// is a few hundred bytes, and a bound keeps a client from making the server buffer without
/// limit.
inline constexpr std::size_t kMaxRequestBodyBytes = BENCHD_MAX_REQUEST_BODY_BYTES;
/// A request's header section (request line and fields, with their line ends) above this
/// (BENCHD_MAX_REQUEST_HEADER_BYTES, 8 KiB) gets 400: Beast's default, held to every plugin.
inline constexpr std::size_t kMaxRequestHeaderBytes = BENCHD_MAX_REQUEST_HEADER_BYTES;
/// The most bytes of a request held unparsed (BENCHD_MAX_UNPARSED_REQUEST_BYTES, 16 KiB): the
/// Asio plugins' read buffers are capped at it, which bounds chunk lines and trailer sections.
inline constexpr std::size_t kMaxUnparsedRequestBytes = BENCHD_MAX_UNPARSED_REQUEST_BYTES;
/// The longest chunk-size line every plugin reads (BENCHD_MIN_CHUNK_LINE_BYTES, 4 KiB); longer
/// ones may be refused. Trailer sections are read up to kMaxRequestHeaderBytes.
inline constexpr std::size_t kMinChunkLineBytes = BENCHD_MIN_CHUNK_LINE_BYTES;
// Boost.Beast stores a field's name and value lengths in 16 bits and throws above that; a
// trailer field must be refused by the buffer's limit before it gets there.
static_assert(kMaxUnparsedRequestBytes < 65'000);

// ---- Inbound connections -------------------------------------------------------------------

/// Reads, writes and idle keep-alive connections time out after this
/// (BENCHD_IO_TIMEOUT_MILLIS: the original service's 60 s client and server timeouts).
inline constexpr std::chrono::seconds kIoTimeout{BENCHD_IO_TIMEOUT_MILLIS / 1000};
/// After an error reply that ends a connection, unread input is discarded for at most this
/// long (BENCHD_DISCARD_TIMEOUT_MILLIS), so the close does not reset the connection before the
/// client has read the reply.
inline constexpr std::chrono::seconds kDiscardTimeout{BENCHD_DISCARD_TIMEOUT_MILLIS / 1000};
/// How long the listener waits before accepting again after the process ran out of descriptors
/// or kernel memory (BENCHD_ACCEPT_BACKOFF_MILLIS): accepting again at once would fail again at
/// once and spin a core, while the waiting connections stay in the backlog.
inline constexpr std::chrono::milliseconds kAcceptBackoff{BENCHD_ACCEPT_BACKOFF_MILLIS};

// The header deadline, kHeaderDeadline, is in benchd/sdk/request_deadline.hpp with the options
// that shorten it and these timeouts.

// ---- Nested calls (upstream connections to the server's own endpoint) ----------------------

/// Connecting to the server's own endpoint for a nested call (BENCHD_CONNECT_TIMEOUT_MILLIS,
/// the original's 20 s).
inline constexpr std::chrono::seconds kConnectTimeout{BENCHD_CONNECT_TIMEOUT_MILLIS / 1000};
/// Upper bound on upstream connections per worker (BENCHD_UPSTREAM_POOL_CAPACITY), like the
/// original's client pool.
inline constexpr std::int64_t kUpstreamPoolCapacity = BENCHD_UPSTREAM_POOL_CAPACITY;
/// What a nested call may take beyond the delay it forwards: the callee's own work and its
/// queueing under load (BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS, 60 s, the original's client
/// timeout, which the nested call had as its whole budget before the timeout grew with the
/// delay).
inline constexpr std::chrono::seconds kUpstreamResponseMargin{
    BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS / 1000};
/// An idle pooled upstream connection is closed after this (BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS),
/// below kIoTimeout: the client retires its connections before the server closes them as idle,
/// so none is left in CLOSE_WAIT holding a descriptor.
inline constexpr std::chrono::seconds kUpstreamIdleTimeout{BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS /
                                                           1000};
/// How often a pool closes expired idle connections when nobody takes any
/// (BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS). A connection lives at most
/// kUpstreamIdleTimeout + kUpstreamIdleSweepInterval idle, still below kIoTimeout.
inline constexpr std::chrono::seconds kUpstreamIdleSweepInterval{
    BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS / 1000};

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

// A limit in seconds must lose no fraction of its milliseconds in benchd/limits.h.
static_assert(kIoTimeout == std::chrono::milliseconds(BENCHD_IO_TIMEOUT_MILLIS));
static_assert(kDiscardTimeout == std::chrono::milliseconds(BENCHD_DISCARD_TIMEOUT_MILLIS));
static_assert(kConnectTimeout == std::chrono::milliseconds(BENCHD_CONNECT_TIMEOUT_MILLIS));
static_assert(kUpstreamResponseMargin ==
              std::chrono::milliseconds(BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS));
static_assert(kUpstreamIdleTimeout ==
              std::chrono::milliseconds(BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS));
static_assert(kUpstreamIdleSweepInterval ==
              std::chrono::milliseconds(BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS));

}  // namespace benchd::sdk
