#include "store_count.hpp"

#include <cmath>
#include <limits>
#include <sqlite3.h>

namespace benchd::testing {

double numberInStore(const std::filesystem::path& file, const std::string& sql) {
  double value = std::numeric_limits<double>::quiet_NaN();
  if (!std::filesystem::exists(file)) {
    return value;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_double(statement, 0);
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return value;
}

int countInStore(const std::filesystem::path& file, const std::string& count_sql) {
  const double count = numberInStore(file, count_sql);
  return std::isnan(count) ? 0 : static_cast<int>(count);
}

}  // namespace benchd::testing
