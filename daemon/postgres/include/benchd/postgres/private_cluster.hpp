#pragma once
// A throw-away PostgreSQL 15 cluster that benchd starts for the rows with the `postgres`
// server profile and stops after them: its own data directory, log and Unix socket in a
// folder the caller provides, reachable only through that socket (no TCP), with durability
// switched off because nothing in it outlives the run.
//
// Who runs PostgreSQL
//   initdb and the server refuse to run as root. When this process runs as root (effective
//   uid 0), start() gives the folder to an unprivileged user (ClusterOptions::server_user,
//   `postgres` by default, which the postgresql-15 package creates) and runs initdb and pg_ctl
//   as that user through setpriv(1); the server then runs as that user too. Otherwise
//   everything runs as this process's own user, and the folder must be writable by it.
//   Either way the tools run in the folder with an empty environment but LC_ALL=C and PATH,
//   so the caller's PG* variables cannot redirect them and their messages are in English.
//   The cluster is initialised with the C locale: ORDER BY on text compares bytes, as the
//   core's SQLite database does.
//
// The folder
//   belongs to the caller: it must exist before start(), it should be empty (initdb refuses
//   an existing `data` folder in it), and the caller removes it after the cluster has been
//   stopped (the destructor never deletes files). When root, start() chowns the folder itself
//   (not its contents or its parents) to the server's user, and every folder above it must
//   be searchable by that user. Inside it: `data/` (the data directory), `postgresql.log`
//   (the server's log) and the socket `.s.PGSQL.<port>`. Its path (and bin_dir's) may not
//   contain quotes, backslashes, '$', '`', ',' or control characters: pg_ctl hands paths to
//   /bin/sh and unix_socket_directories splits at commas; bin_dir may not contain '=' either
//   (env(1) would take the program for a variable).
//
// Processes
//   initdb and pg_ctl are children of the calling thread (benchd::common::ChildProcess: argv
//   vectors, no shell, output captured), started through env(1), and setpriv(1) when root,
//   which exec them in place. The server itself detaches from pg_ctl into a
//   session of its own, so a terminal's Ctrl-C does not reach it; it stops when stop() or the
//   destructor runs. If this process dies without either, the server keeps running until
//   someone runs `pg_ctl stop -D <folder>/data`.
//
// Thread-safety: none. start(), stop() and the destructor block for as long as PostgreSQL
// takes (about 2 s to start on two cores, less to stop; at most ClusterOptions::step_timeout
// per step). connectionString() and the path accessors may be called from any thread while
// nothing moves or stops the cluster.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace benchd::postgres {

/// How to create and run a private cluster. Only `folder` has no usable default.
struct ClusterOptions {
  /// Where the cluster lives (see "The folder" above). Made absolute by start().
  std::filesystem::path folder;
  /// Where initdb and pg_ctl are (Debian's postgresql-15 package).
  std::filesystem::path bin_dir = "/usr/lib/postgresql/15/bin";
  /// The unprivileged user that runs PostgreSQL when this process is root; ignored otherwise.
  std::string server_user = "postgres";
  /// Names the socket file (.s.PGSQL.<port>); the server opens no TCP port, so the PostgreSQL
  /// default cannot collide with another cluster whose socket lives in another folder.
  std::uint16_t port = 5432;
  /// The server's max_connections: room for a pool of 500 connections (the Java study's
  /// HikariCP maximumPoolSize) plus administration and the reserved superuser slots.
  int max_connections = 600;
  /// The longest initdb, pg_ctl start or pg_ctl stop may take before start() or stop() gives
  /// up (pg_ctl's own -t wait uses it too).
  std::chrono::seconds step_timeout{60};
};

/// A running private cluster (RAII): the destructor stops the server if stop() has not.
/// Move-only; a moved-from object manages nothing and only running() and the destructor may
/// be called on it.
class PrivateCluster {
 public:
  /// The database superuser initdb creates (trusted on the socket, no password).
  static constexpr const char* kSuperuser = "postgres";

  /// Creates the cluster in options.folder (initdb), writes its settings (listen_addresses
  /// '', the socket in the folder, the port, max_connections, fsync, synchronous_commit and
  /// full_page_writes off) and starts the server, returning once it accepts connections.
  /// Throws ClusterError naming the failed step with PostgreSQL's own message; a server that
  /// started but did not become ready in time is stopped again before the throw.
  [[nodiscard]] static PrivateCluster start(ClusterOptions options);

  /// Stops the server (as stop()) if it is still running; errors are swallowed.
  ~PrivateCluster();
  PrivateCluster(PrivateCluster&& other) noexcept;
  PrivateCluster& operator=(PrivateCluster&& other) noexcept;
  PrivateCluster(const PrivateCluster&) = delete;
  PrivateCluster& operator=(const PrivateCluster&) = delete;

  /// A libpq conninfo for `database` as the superuser over the socket, e.g.
  /// "host='/tmp/x' port=5432 dbname='postgres' user='postgres'" (values quoted for libpq).
  [[nodiscard]] std::string connectionString(const std::string& database = "postgres") const;

  [[nodiscard]] const std::filesystem::path& folder() const;
  [[nodiscard]] std::filesystem::path dataDirectory() const;
  [[nodiscard]] std::filesystem::path logFile() const;
  /// The server's socket file; it exists while the server runs.
  [[nodiscard]] std::filesystem::path socketFile() const;

  /// True from start() until stop() (or a move) ends this object's responsibility.
  [[nodiscard]] bool running() const noexcept;

  /// Stops the server with `pg_ctl stop -m fast` (open sessions are ended, not waited for)
  /// and waits until it has exited and removed its socket. If that fails, tries
  /// `-m immediate` and throws ClusterError (step kStop) with what both attempts said. After
  /// stop() returns or throws, running() is false and the folder may be removed. Does
  /// nothing when not running.
  void stop();

  /// Starts the stopped server again on the same data (pg_ctl start), e.g. after a fault test
  /// stopped it: the same socket, the same databases. Throws ClusterError (step kStart) as
  /// start() does. Does nothing while running; must not be called on a moved-from object.
  void startAgain();

 private:
  struct State;
  explicit PrivateCluster(std::unique_ptr<State> state);

  std::unique_ptr<State> state_;
};

}  // namespace benchd::postgres
