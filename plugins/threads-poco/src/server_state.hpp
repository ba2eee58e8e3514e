#pragma once

#include "drain_signal.hpp"

#include <benchd/blocking_clients/library_client.hpp>
#include <benchd/h2_session/http2_profiles.hpp>
#include <benchd/poco_client_support/poco_session_client.hpp>
#include <benchd/sdk/blocking_database_pool.hpp>
#include <benchd/sdk/host.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/tls_support/tls_context.hpp>

#include <Poco/ThreadPool.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace benchd::threads_poco {

inline constexpr const char* kApproachName = "threads-poco";

/// What request handlers share. Counters are atomics updated by every pool thread.
struct ServerState {
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad header_deadline_ms,
  /// upstream_margin_ms or upstream_idle_ms, a certificate or key that cannot be loaded, or
  /// `tls` or `h2` with client-curl or client-httplib, or no-keep-alive with `h2` or `h2c`.
  ServerState(const benchd_host_api* host_api, const sdk::ServerSettings& settings)
      : host(host_api),
        header_deadline(sdk::headerDeadline(settings)),
        h2c(settings.hasProfile("h2c")),
        tls_server(serverTlsContext(settings)),
        tls_client(tls_server ? clientTlsContext() : nullptr),
        nested_client(nestedClientFor(settings, tls_client.get())),
        database(sdk::hostHasDatabase(host_api) ? std::make_unique<sdk::BlockingDatabasePool>(
                                                      host_api, sdk::databaseDeadline(settings))
                                                : nullptr) {
    h2_session::refuseHttp2WithoutKeepAlive(settings);
  }

  sdk::Host host;
  bool no_keep_alive = false;
  /// How long a request's header may take from its first byte (sdk::headerDeadline()).
  std::chrono::milliseconds header_deadline;
  std::atomic<bool> draining{false};
  /// Raised with `draining`, for HTTP/2 connections, which wait in poll().
  DrainSignal drain;
  /// Under `h2c`: a connection whose first bytes are HTTP/2's client preface speaks HTTP/2.
  const bool h2c;
  /// The pool the connections run on, which an HTTP/2 connection's streams run on too (set by
  /// Server::start before the first connection).
  Poco::ThreadPool* stream_pool = nullptr;
  /// Under `tls` or `h2`: the connections' context (the run's certificate; every connection's TLS
  /// is made from it, concurrently, read-only after construction) and the nested calls' client
  /// context. Null in clear.
  tls_support::SslContextPtr tls_server;
  tls_support::SslContextPtr tls_client;
  /// The nested call's client: the row's client profile's (client-curl, client-httplib), else
  /// the native one, Poco's HTTPClientSession (client-poco). It has no stop descriptor: the
  /// stop shuts every client connection down, which ends its calls as a departure does.
  std::unique_ptr<sdk::BlockingNestedClient> nested_client;
  /// The `postgres` row's sessions; null for the other rows.
  std::unique_ptr<sdk::BlockingDatabasePool> database;
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};

  static tls_support::SslContextPtr serverTlsContext(const sdk::ServerSettings& settings) {
    if (!settings.hasProfile("tls") && !settings.hasProfile("h2"))
      return nullptr;
    auto context = tls_support::newServerContext();
    tls_support::configureServer(context.get(), settings, settings.hasProfile("h2"));
    return context;
  }

  static tls_support::SslContextPtr clientTlsContext() {
    auto context = tls_support::newClientContext();
    tls_support::configureClient(context.get());
    return context;
  }

  static std::unique_ptr<sdk::BlockingNestedClient> nestedClientFor(
      const sdk::ServerSettings& settings, SSL_CTX* tls_client) {
    const auto margin = sdk::upstreamResponseMargin(settings);
    const auto idle_timeout = sdk::upstreamIdleTimeout(settings);
    auto client =
        blocking_clients::makeLibraryClient(settings, margin, idle_timeout, -1, tls_client);
    if (!client) {
      client = std::make_unique<poco_client_support::PocoSessionClient>(margin, idle_timeout, -1,
                                                                        tls_client);
    }
    return client;
  }
};

}  // namespace benchd::threads_poco
