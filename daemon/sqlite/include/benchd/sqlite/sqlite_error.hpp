#pragma once

#include <stdexcept>
#include <string>

struct sqlite3;

namespace benchd::sqlite {

/// A failed SQLite call. what() is "<context>: <sqlite message>".
class SqliteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;

  /// The error of the last call on `db` (which may be null for a failed open).
  [[nodiscard]] static SqliteError fromConnection(sqlite3* db, const std::string& context);
};

}  // namespace benchd::sqlite
