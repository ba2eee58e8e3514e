#pragma once
// What MHD's callbacks share with the server: the host, the nested call's client, the database
// and the counters. MHD calls the callbacks on its own threads (a connection's thread in
// per-connection mode), so every member is thread-safe or set before serving starts.

#include "mhd_settings.hpp"

#include <benchd/sdk/blocking_database_pool.hpp>
#include <benchd/sdk/blocking_nested_client.hpp>
#include <benchd/sdk/host.hpp>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace benchd::libmicrohttpd {

inline constexpr const char* kApproachName = "libmicrohttpd";

/// The descriptors of the open client connections, so a stop can shut them down: that ends
/// every wait, which watches its client's descriptor. Any thread.
class OpenConnections {
 public:
  void add(int fd) {
    const std::lock_guard lock(mutex_);
    fds_.insert(fd);
  }
  void remove(int fd) {
    const std::lock_guard lock(mutex_);
    fds_.erase(fd);
  }
  /// shutdown(2) of both directions on every open connection (MHD still owns and closes them).
  void shutDownAll();
  [[nodiscard]] std::int64_t count() const {
    const std::lock_guard lock(mutex_);
    return static_cast<std::int64_t>(fds_.size());
  }

 private:
  mutable std::mutex mutex_;
  std::set<int> fds_;
};

class ConnectionAcceptor;
class WaitReactor;

struct ServerState {
  /// Throws sdk::PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a bad option.
  ServerState(const benchd_host_api* host_api, const sdk::ServerSettings& settings);

  const benchd_host_api* host_api;
  sdk::Host host;
  const MhdSettings mhd;
  /// The row has the `postgres` profile's database.
  const bool has_database;
  const bool no_keep_alive;
  /// Under `tls`: the certificate (chain) and key PEM MHD serves with (GnuTLS), checked in
  /// create() with OpenSSL as every plugin checks them; empty in clear.
  const std::string tls_certificate_pem;
  const std::string tls_key_pem;
  [[nodiscard]] bool tls() const noexcept { return !tls_certificate_pem.empty(); }
  /// From stop() on: every answer closes its connection.
  std::atomic<bool> draining{false};
  /// Per-connection mode: the nested call's client (libcurl's easy interface, blocking the
  /// connection's thread) and the `postgres` row's sessions (null for the other rows).
  /// Null in the event-driven modes, whose waits are the WaitReactor's.
  std::unique_ptr<sdk::BlockingNestedClient> nested_client;
  std::unique_ptr<sdk::BlockingDatabasePool> database;
  /// The event-driven modes' reactor; null in per-connection mode.
  WaitReactor* reactor = nullptr;
  OpenConnections connections;
  /// Told of every closed connection; set before the first connection is accepted.
  ConnectionAcceptor* acceptor = nullptr;
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};
  std::atomic<std::int64_t> connections_accepted{0};
};

}  // namespace benchd::libmicrohttpd
