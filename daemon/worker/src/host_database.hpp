#pragma once

#include <benchd/microservice/movie_service.hpp>
#include <benchd/plugin.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace benchd::worker {

/// Where the movies of a `postgres` row live, and how many sessions each plugin gets.
struct DatabaseSettings {
  std::string conninfo;         ///< libpq conninfo of the movie database
  std::uint32_t pool_size = 0;  ///< sessions the plugin may open; 0: no database
};

/// The host's side of the ABI 2.1 db_* functions (plugin.h): sessions over
/// postgres::MovieSession, with the core's cache, read-only rule and JSON from `service`.
/// Owned by HostApi; `service` must outlive it.
///
/// Thread-safety: the functions may be called concurrently for different sessions; the
/// counters are atomics.
class HostDatabase {
 public:
  HostDatabase(microservice::MovieService& service, DatabaseSettings settings);

  /// Fills the db_* entries that take a session (db_close to db_abandon); db_pool_size and
  /// db_open take the table's host_context and are HostApi's.
  static void fillSessionFunctions(benchd_host_api& table);

  /// db_open: a new session (new, freed by db_close). Throws sdk::PluginError
  /// (BENCHD_ERR_STATE) when the row has no database or the pool's sessions are all open.
  [[nodiscard]] benchd_db_session* openSession();

  [[nodiscard]] microservice::MovieService& service() const noexcept { return service_; }
  [[nodiscard]] const DatabaseSettings& settings() const noexcept { return settings_; }

  /// Statements sent to PostgreSQL so far (a save counts two).
  [[nodiscard]] std::int64_t queries() const noexcept { return queries_.load(); }
  /// Sessions with an operation running now.
  [[nodiscard]] std::int64_t sessionsBusy() const noexcept { return busy_.load(); }
  /// Sessions open now.
  [[nodiscard]] std::int64_t sessionsOpen() const noexcept { return open_.load(); }

  void closeSession() noexcept { open_.fetch_sub(1); }
  void operationStarted() noexcept { busy_.fetch_add(1); }
  void operationEnded(std::int64_t statements) noexcept {
    busy_.fetch_sub(1);
    queries_.fetch_add(statements);
  }

 private:
  microservice::MovieService& service_;
  DatabaseSettings settings_;
  std::atomic<std::int64_t> queries_{0};
  std::atomic<std::int64_t> busy_{0};
  std::atomic<std::int64_t> open_{0};
};

}  // namespace benchd::worker
