#pragma once

#include <benchd/sqlite/sqlite_statement.hpp>

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;

namespace benchd::sqlite {

/// Owns one SQLite connection, opened without SQLite's per-connection mutex.
///
/// Thread-safety: none; a connection (and its statements) must be used by one thread at a
/// time. Different connections may be used concurrently.
class SqliteConnection {
 public:
  /// Opens (creating if needed) the database named by the URI, e.g.
  /// "file:/name?vfs=memdb". Throws SqliteError.
  explicit SqliteConnection(const std::string& uri);
  ~SqliteConnection();
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  /// Runs one or more SQL statements that return no rows. Throws SqliteError.
  void execute(const char* sql);

  [[nodiscard]] SqliteStatement prepare(std::string_view sql);

  /// The rowid of the last successful INSERT on this connection.
  [[nodiscard]] std::int64_t lastInsertRowId() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE on this connection.
  [[nodiscard]] std::int64_t changes() const;

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace benchd::sqlite
