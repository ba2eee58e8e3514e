#include "store_count.hpp"

#include <sqlite3.h>

namespace benchd::testing {

int countInStore(const std::filesystem::path& file, const char* count_sql) {
  if (!std::filesystem::exists(file)) {
    return 0;
  }
  sqlite3* db = nullptr;
  int count = 0;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, count_sql, -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      count = sqlite3_column_int(statement, 0);
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return count;
}

}  // namespace benchd::testing
