#pragma once

#include "server_signals.hpp"
#include "upstream_client.hpp"

#include <benchd/asio_common/tls_contexts.hpp>
#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/h2_blocking/http2_pump.hpp>
#include <benchd/h2_session/http2_profiles.hpp>
#include <benchd/sdk/blocking_database_pool.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/plugin_support.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace benchd::threads_asio {

inline constexpr const char* kApproachName = "threads-asio";

/// What the pool threads serving connections share. Counters are atomics updated by every
/// pool thread.
struct ServerState {
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad header_deadline_ms,
  /// upstream_margin_ms or upstream_idle_ms, a certificate or key that cannot be loaded, or
  /// `tls` or `h2` with client-curl or client-httplib, or no-keep-alive with `h2` or `h2c`.
  ServerState(const benchd_host_api* host_api, const sdk::ServerSettings& settings)
      : host(host_api),
        no_keep_alive(settings.hasProfile("no-keep-alive")),
        header_deadline(sdk::headerDeadline(settings)),
        upstream(signals, sdk::upstreamResponseMargin(settings),
                 sdk::upstreamIdleTimeout(settings)),
        tls(asio_common::makeTlsContexts(settings)),
        library_client(blocking_clients::makeLibraryClient(
            settings, sdk::upstreamResponseMargin(settings), sdk::upstreamIdleTimeout(settings),
            signals.stopFd(), tls ? tls->client.native_handle() : nullptr)),
        database(sdk::hostHasDatabase(host_api) ? std::make_unique<sdk::BlockingDatabasePool>(
                                                      host_api, sdk::databaseDeadline(settings))
                                                : nullptr),
        h2c(settings.hasProfile("h2c")) {
    h2_session::refuseHttp2WithoutKeepAlive(settings);
  }

  sdk::Host host;
  const bool no_keep_alive;
  /// How long a request's header may take from its first byte (sdk::headerDeadline()).
  const std::chrono::milliseconds header_deadline;
  ServerSignals signals;
  UpstreamClient upstream;
  /// Under `tls`: the server's context (the run's certificate) and the nested calls' client
  /// context; null otherwise.
  std::unique_ptr<asio_common::TlsContexts> tls;
  /// The nested call's client under a library's client profile (client-curl, client-httplib,
  /// client-poco); null otherwise, and then `upstream` (Beast, blocking) serves the nested calls.
  /// The stop ends its waits as it ends Beast's.
  std::unique_ptr<sdk::BlockingNestedClient> library_client;
  /// The `postgres` row's sessions; null for the other rows.
  std::unique_ptr<sdk::BlockingDatabasePool> database;
  /// Under `h2c`: a connection whose first bytes are HTTP/2's client preface speaks HTTP/2.
  const bool h2c;
  /// Where an HTTP/2 connection's streams run: the connections' pool (set by the Server before
  /// the first connection).
  h2_blocking::StreamRunner* stream_runner = nullptr;
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};
  std::atomic<std::int64_t> connections_open{0};
};

}  // namespace benchd::threads_asio
