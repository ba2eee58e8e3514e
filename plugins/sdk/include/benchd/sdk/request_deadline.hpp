#pragma once
// Header-only plugin SDK: the header deadline every approach plugin applies to inbound
// requests, and the plugin options that shorten it and the nested-call timeouts
// (benchd/sdk/limits.hpp) for tests.
//
// The contract, the same in every plugin:
//  - A connection waits for the first byte of its next request as long as an idle keep-alive
//    connection may wait (sdk::kIoTimeout).
//  - From that first byte, the whole request header must arrive within the header deadline:
//    a total over every read, not a timeout per read. Otherwise the connection is closed
//    without an answer.
//  - The body, once the header is complete, must arrive within sdk::kIoTimeout, again in
//    total.

#include <benchd/limits.h>
#include <benchd/plugin.h>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <string>
#include <string_view>

namespace benchd::sdk {

/// How long a request header may take to arrive, counted from its first byte
/// (BENCHD_HEADER_DEADLINE_MILLIS, 20 s). A total rather than a timeout per read, because a
/// timeout per read lets a client that sends one byte every 50 s hold a connection (and, for a
/// thread-per-connection server, a thread) forever; 20 s covers a congested link many times
/// over and still frees a slot held by a trickling client quickly.
inline constexpr std::chrono::milliseconds kHeaderDeadline{BENCHD_HEADER_DEADLINE_MILLIS};

/// The plugin options that shorten the timeouts below, from 1 ms up to the limit itself. They
/// exist so tests need not wait for the real limits (20 s, 60 s, 30 s); a longer value is
/// refused because it would reopen what the limit closes.
///  - `header_deadline_ms`: the header deadline (kHeaderDeadline);
///  - `upstream_margin_ms`: what a nested call may take beyond the delay it forwards
///    (kUpstreamResponseMargin, see upstreamResponseTimeout());
///  - `upstream_idle_ms`: how long an idle pooled upstream connection is kept
///    (kUpstreamIdleTimeout); the pool then also sweeps at least that often;
///  - `db_deadline_ms`: how long a request may spend on the database of the `postgres`
///    profile (kDatabaseDeadline).
inline constexpr std::string_view kHeaderDeadlineOption = "header_deadline_ms";
inline constexpr std::string_view kUpstreamMarginOption = "upstream_margin_ms";
inline constexpr std::string_view kUpstreamIdleOption = "upstream_idle_ms";
inline constexpr std::string_view kDatabaseDeadlineOption = "db_deadline_ms";

/// How long a request may spend on the database, waiting for a pooled session included
/// (BENCHD_DATABASE_DEADLINE_MILLIS, 10 s).
inline constexpr std::chrono::milliseconds kDatabaseDeadline{BENCHD_DATABASE_DEADLINE_MILLIS};

/// The options every approach plugin takes for its request deadlines, for a Server's
/// knownOptions().
inline constexpr std::array<std::string_view, 4> kRequestDeadlineOptions = {
    kHeaderDeadlineOption, kUpstreamMarginOption, kUpstreamIdleOption, kDatabaseDeadlineOption};

/// The value of the shortening option `option`, or `limit` when it is not given. Throws
/// PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the option and its range for a value that
/// is not an integer from 1 to `limit`'s milliseconds.
inline std::chrono::milliseconds shortenedTimeout(const ServerSettings& settings,
                                                  std::string_view option,
                                                  std::chrono::milliseconds limit) {
  return std::chrono::milliseconds(
      integerOption(settings, option, limit.count(), 1, limit.count(), "milliseconds"));
}

/// The header deadline in effect: kHeaderDeadline unless `header_deadline_ms` shortens it.
inline std::chrono::milliseconds headerDeadline(const ServerSettings& settings) {
  return shortenedTimeout(settings, kHeaderDeadlineOption, kHeaderDeadline);
}

/// The nested call's margin beyond the delay in effect: kUpstreamResponseMargin unless
/// `upstream_margin_ms` shortens it.
inline std::chrono::milliseconds upstreamResponseMargin(const ServerSettings& settings) {
  return shortenedTimeout(settings, kUpstreamMarginOption, kUpstreamResponseMargin);
}

/// How long an idle pooled upstream connection is kept: kUpstreamIdleTimeout unless
/// `upstream_idle_ms` shortens it.
inline std::chrono::milliseconds upstreamIdleTimeout(const ServerSettings& settings) {
  return shortenedTimeout(settings, kUpstreamIdleOption, kUpstreamIdleTimeout);
}

/// How long a request may spend on the database: kDatabaseDeadline unless `db_deadline_ms`
/// shortens it.
inline std::chrono::milliseconds databaseDeadline(const ServerSettings& settings) {
  return shortenedTimeout(settings, kDatabaseDeadlineOption, kDatabaseDeadline);
}

/// How often a pool whose idle connections expire after `idle_timeout` sweeps them:
/// kUpstreamIdleSweepInterval, or the idle timeout when that is shorter.
inline std::chrono::milliseconds upstreamIdleSweepInterval(std::chrono::milliseconds idle_timeout) {
  return std::min<std::chrono::milliseconds>(kUpstreamIdleSweepInterval, idle_timeout);
}

}  // namespace benchd::sdk
