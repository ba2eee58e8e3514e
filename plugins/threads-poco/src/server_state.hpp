#pragma once

#include "upstream_session_pool.hpp"

#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/sdk/blocking_database_pool.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace benchd::threads_poco {

inline constexpr const char* kApproachName = "threads-poco";

/// What request handlers share. Counters are atomics updated by every pool thread.
struct ServerState {
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad header_deadline_ms,
  /// upstream_margin_ms or upstream_idle_ms.
  ServerState(const benchd_host_api* host_api, const sdk::ServerSettings& settings)
      : host(host_api),
        header_deadline(sdk::headerDeadline(settings)),
        upstream(sdk::upstreamResponseMargin(settings), sdk::upstreamIdleTimeout(settings)),
        library_client(blocking_clients::makeLibraryClient(settings,
                                                           sdk::upstreamResponseMargin(settings),
                                                           sdk::upstreamIdleTimeout(settings), -1)),
        database(sdk::hostHasDatabase(host_api) ? std::make_unique<sdk::BlockingDatabasePool>(
                                                      host_api, sdk::databaseDeadline(settings))
                                                : nullptr) {}

  sdk::Host host;
  bool no_keep_alive = false;
  /// How long a request's header may take from its first byte (sdk::headerDeadline()).
  std::chrono::milliseconds header_deadline;
  std::atomic<bool> draining{false};
  UpstreamSessionPool upstream;
  /// The nested call's client under a library's client profile (client-curl, client-httplib);
  /// null otherwise, and then `upstream` (Poco's HTTPClientSession) serves the nested calls.
  /// It has no stop descriptor: the stop shuts every client connection down, which ends its
  /// calls as a departure does.
  std::unique_ptr<sdk::BlockingNestedClient> library_client;
  /// The `postgres` row's sessions; null for the other rows.
  std::unique_ptr<sdk::BlockingDatabasePool> database;
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};

  /// Closes the idle pooled connections of the nested call's client, and from now on every
  /// connection a nested call ends with (the server drains).
  void drainUpstream() {
    upstream.drain();
    if (library_client)
      library_client->drain();
  }
};

}  // namespace benchd::threads_poco
