#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_error.hpp>

#include <sqlite3.h>

namespace benchd::sqlite {
namespace {

/// Upper bound on waiting for another connection's lock. Writers are already exclusive of
/// readers above SQLite, so this is a safety net only.
constexpr int kBusyTimeoutMillis = 5000;

/// Turns off SQLite's memory statistics, which take one process-wide mutex on every SQLite
/// allocation and so serialise all connections. This only works before SQLite initialises,
/// i.e. before the process opens its first database; later it is a harmless no-op.
void disableMemoryStatisticsOnce() {
  static const int kResult = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  static_cast<void>(kResult);
}

}  // namespace

SqliteConnection::SqliteConnection(const std::string& uri) {
  disableMemoryStatisticsOnce();
  constexpr int kFlags =
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(uri.c_str(), &db_, kFlags, nullptr) != SQLITE_OK) {
    const std::string reason = SqliteError::fromConnection(db_, "open " + uri).what();
    sqlite3_close(db_);
    throw SqliteError(reason);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kBusyTimeoutMillis);
}

SqliteConnection::~SqliteConnection() {
  sqlite3_close_v2(db_);
}

void SqliteConnection::execute(const char* sql) {
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    throw SqliteError::fromConnection(db_, std::string("execute \"") + sql + "\"");
  }
}

SqliteStatement SqliteConnection::prepare(std::string_view sql) {
  return {db_, sql};
}

std::int64_t SqliteConnection::lastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t SqliteConnection::changes() const {
  return sqlite3_changes64(db_);
}

}  // namespace benchd::sqlite
