#pragma once
// The PostgreSQL server behind a run's `postgres` rows. Either a private cluster benchd starts
// itself (postgres::PrivateCluster: PostgreSQL 15 of Debian's postgresql-15, a Unix socket and
// no TCP, as the postgres user when benchd runs as root) in a temporary folder it removes
// afterwards, or an existing server the user names (`benchd run --postgres URL`, the daemon's
// `postgres_url`), in which benchd creates a schema of its own for the run and drops it after,
// touching nothing else. The movie database is reset to the seed before every (row, approach),
// so each starts equal.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>

namespace benchd::runner {

/// Where a run's `postgres` rows get their database, and how many sessions each plugin gets.
struct DatabaseServerSettings {
  /// An existing server: a libpq URI ("postgresql://user@host/db") or key=value conninfo.
  /// Empty: a private cluster.
  std::string url;
  /// The sessions every plugin may open (the worker's --db-pool): the same for all, so the
  /// models differ only in how they queue for them. The original's pool was 500.
  std::uint32_t pool_size = 16;
  /// initdb and pg_ctl of the private cluster.
  std::filesystem::path bin_dir = "/usr/lib/postgresql/15/bin";
};

/// The default pool size and its bounds (the worker's --db-pool range; a private cluster
/// allows 600 connections, room for a pool of 500 and administration).
inline constexpr std::uint32_t kDefaultDatabasePool = 16;
inline constexpr std::uint32_t kMaxDatabasePool = 500;

/// What --plan says about the database: "" when the run can have one, else why not.
[[nodiscard]] std::string databaseServerProblem(const DatabaseServerSettings& settings);
/// One line naming the database a run would use, e.g. "a private PostgreSQL 15 cluster
/// (/usr/lib/postgresql/15/bin), pool 16 per plugin".
[[nodiscard]] std::string describeDatabaseServer(const DatabaseServerSettings& settings);

/// The run's database server. Thread-safety: none; the runner's thread only.
class DatabaseServer {
 public:
  explicit DatabaseServer(DatabaseServerSettings settings);
  /// Stops the private cluster and removes its folder (also when the server would not stop),
  /// or drops the run's schema. Never throws.
  ~DatabaseServer();
  DatabaseServer(const DatabaseServer&) = delete;
  DatabaseServer& operator=(const DatabaseServer&) = delete;

  /// The conninfo of the movie database, reset to the seed, for the next (row, approach).
  /// Starts the server (or creates the schema) on the first call, about 2 s. A private cluster
  /// whose server has died since (killed, crashed) is replaced by a fresh one in a new folder,
  /// the old folder removed, and takeNotice() says so. Throws std::runtime_error with
  /// PostgreSQL's own message when it cannot start (every later call throws the same, without
  /// trying again) or the reset fails (e.g. a given server went away).
  [[nodiscard]] std::string prepareRow();

  /// A line for the person running the run about what prepareRow() did beyond the ordinary
  /// (a private cluster started again); nothing otherwise. Taken once.
  [[nodiscard]] std::optional<std::string> takeNotice();

  /// Why the server no longer answers, after a row's load (PostgreSQL's message, as "cannot
  /// connect to PostgreSQL: ..."); nothing when it answers, or when prepareRow() never
  /// succeeded. A server that died or stopped during a row fails that row. Waits at most
  /// about 10 s (libpq's connect_timeout).
  [[nodiscard]] std::optional<std::string> failure() const;

  /// The private cluster's postmaster while it runs (its processes are the database's cost);
  /// 0 for an external server or before the start.
  [[nodiscard]] pid_t serverPid() const;

  [[nodiscard]] const DatabaseServerSettings& settings() const noexcept { return settings_; }

 private:
  void start();
  /// Whether the private cluster's postmaster is alive (true for a given server: libpq says
  /// when that one is gone).
  [[nodiscard]] bool serverAlive() const;
  /// Stops what is left of the private cluster (never throws) and removes its folder.
  void discardCluster() noexcept;

  struct Private;
  DatabaseServerSettings settings_;
  std::unique_ptr<Private> private_;
  std::optional<std::string> start_failure_;
  std::string conninfo_;  ///< of the movie database, once started
  std::optional<std::string> notice_;
};

}  // namespace benchd::runner
