#pragma once

#include <benchd/postgres/pg_result.hpp>

#include <libpq-fe.h>
#include <optional>
#include <span>
#include <string>

namespace benchd::postgres {

/// One PostgreSQL connection on libpq's blocking API (PQconnectdb, PQexec, PQexecParams): the
/// setup and administration path (schema, seed, reset, tests). The approach plugins' request
/// paths wait for the database each in their own way and build on native().
///
/// Errors throw PgError with libpq's message. Thread-safety: none; libpq forbids using one
/// PGconn from two threads at once. Different connections may be used concurrently.
class PgConnection {
 public:
  /// Connects with a libpq conninfo ("host=/tmp/x port=5432 dbname=postgres ..."); unset
  /// parameters come from libpq's environment variables and defaults. Sets client_encoding
  /// to UTF8, the encoding of every text benchd handles. Throws PgError "cannot connect to
  /// PostgreSQL: <PQerrorMessage>" (which names the socket or host; the conninfo itself is
  /// not repeated, as it may hold a password).
  explicit PgConnection(const std::string& conninfo);
  /// Closes the connection (PQfinish).
  ~PgConnection();
  PgConnection(PgConnection&& other) noexcept;
  PgConnection& operator=(PgConnection&& other) noexcept;
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs `sql`, which may hold several statements separated by ';' (simple query protocol,
  /// one implicit transaction unless it contains BEGIN/COMMIT), and returns the last
  /// statement's result. Throws PgError naming the first statement that failed.
  PgResult execute(const std::string& sql);

  /// Runs one statement with text parameters $1..$n; nullopt is SQL NULL. Types come from
  /// the statement's context (write "$1::bigint" where it does not say).
  PgResult execute(const std::string& sql, std::span<const std::optional<std::string>> parameters);

  /// The libpq connection, still owned by this object: for the calls this class does not
  /// wrap. Never null except in a moved-from object.
  [[nodiscard]] PGconn* native() const noexcept { return connection_; }

 private:
  PGconn* connection_ = nullptr;
};

}  // namespace benchd::postgres
