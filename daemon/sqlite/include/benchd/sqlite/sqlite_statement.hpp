#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace benchd::sqlite {

/// Owns one prepared statement. Parameter and column indexes are as in the SQLite C API
/// (parameters from 1, columns from 0). Text views returned by columnText() stay valid until
/// the next step() or reset().
///
/// Thread-safety: none; a statement is used by the thread holding its connection.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  /// Copies the text.
  void bind(int index, std::string_view value);
  /// Copies the bytes (bound as a BLOB, not as text).
  void bindBlob(int index, std::span<const std::byte> bytes);
  void bindNull(int index);
  template <typename T>
  void bind(int index, const std::optional<T>& value) {
    if (value) {
      bind(index, *value);
    } else {
      bindNull(index);
    }
  }

  /// Advances to the next row: true when a row is available, false when done. Throws
  /// SqliteError on failure.
  bool step();
  /// Steps to completion, for statements that return no rows.
  void run();

  [[nodiscard]] std::string_view columnText(int column) const;
  [[nodiscard]] std::int64_t columnInt64(int column) const;
  [[nodiscard]] double columnDouble(int column) const;
  [[nodiscard]] bool columnIsNull(int column) const;
  /// Valid until the next step() or reset(), like columnText().
  [[nodiscard]] std::span<const std::byte> columnBlob(int column) const;

  /// Ends the current execution and clears the bindings, releasing the statement's locks.
  void reset() noexcept;

 private:
  sqlite3_stmt* statement_ = nullptr;
};

/// Resets a statement when leaving scope, so an exception never leaves it mid-execution.
class StatementExecution {
 public:
  explicit StatementExecution(SqliteStatement& statement) : statement_(statement) {}
  ~StatementExecution() { statement_.reset(); }
  StatementExecution(const StatementExecution&) = delete;
  StatementExecution& operator=(const StatementExecution&) = delete;

  [[nodiscard]] SqliteStatement& operator*() const { return statement_; }
  [[nodiscard]] SqliteStatement* operator->() const { return &statement_; }

 private:
  SqliteStatement& statement_;
};

}  // namespace benchd::sqlite
