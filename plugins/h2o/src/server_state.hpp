#pragma once
// What every event loop of the h2o plugin shares: the host, the row's profiles, the deadlines and
// the counters. Set before the first loop starts and read-only after, but for the atomics.

#include "database_sessions.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/database.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/plugin_support.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace benchd::h2o_plugin {

inline constexpr const char* kApproachName = "h2o";

struct ServerState {
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad deadline option.
  ServerState(const benchd_host_api* host_api, const sdk::ServerSettings& settings);

  const benchd_host_api* host_api;
  sdk::Host host;
  /// The row has the `postgres` profile's database.
  const bool has_database;
  const bool no_keep_alive;
  /// Under `tls` or `h2`: the nested calls go over TLS too.
  const bool tls;
  const std::chrono::milliseconds header_deadline;
  const std::chrono::milliseconds upstream_margin;
  const std::chrono::milliseconds upstream_idle;
  const std::chrono::milliseconds database_deadline;
  /// From stop() on: every HTTP/1.1 answer closes its connection (HTTP/2 ones get GOAWAY).
  std::atomic<bool> draining{false};
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};
  std::atomic<std::int64_t> connections_open{0};
  std::atomic<std::int64_t> connections_accepted{0};
  std::atomic<std::int64_t> accept_errors{0};
  sdk::DatabaseWaitCounters database_counters;
  /// The `postgres` row's sessions, shared by the loops.
  DatabaseSessions database_sessions{host_api};
};

}  // namespace benchd::h2o_plugin
