#include <benchd/sqlite/sqlite_error.hpp>

#include <sqlite3.h>

namespace benchd::sqlite {

SqliteError SqliteError::fromConnection(sqlite3* db, const std::string& context) {
  const char* message = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  return SqliteError{context + ": " + message};
}

}  // namespace benchd::sqlite
