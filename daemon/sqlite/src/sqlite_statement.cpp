#include <benchd/sqlite/sqlite_error.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>

#include <sqlite3.h>
#include <utility>

namespace benchd::sqlite {

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) {
  if (sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                         &statement_, nullptr) != SQLITE_OK) {
    throw SqliteError::fromConnection(db, "prepare \"" + std::string(sql) + "\"");
  }
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(statement_);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : statement_(std::exchange(other.statement_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(statement_);
    statement_ = std::exchange(other.statement_, nullptr);
  }
  return *this;
}

namespace {

void checkBind(sqlite3_stmt* statement, int result) {
  if (result != SQLITE_OK) {
    throw SqliteError::fromConnection(sqlite3_db_handle(statement), "bind");
  }
}

}  // namespace

void SqliteStatement::bind(int index, std::int64_t value) {
  checkBind(statement_, sqlite3_bind_int64(statement_, index, value));
}

void SqliteStatement::bind(int index, double value) {
  checkBind(statement_, sqlite3_bind_double(statement_, index, value));
}

void SqliteStatement::bind(int index, std::string_view value) {
  // A null pointer would bind NULL, not '': an empty view may have one.
  checkBind(statement_, sqlite3_bind_text64(statement_, index, value.empty() ? "" : value.data(),
                                            value.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
}

void SqliteStatement::bindBlob(int index, std::span<const std::byte> bytes) {
  // The same for a blob: an empty span (e.g. the latency buckets of a second without a single
  // answer) is a zero-length blob, which a NOT NULL column takes.
  if (bytes.empty()) {
    checkBind(statement_, sqlite3_bind_zeroblob(statement_, index, 0));
    return;
  }
  checkBind(statement_,
            sqlite3_bind_blob64(statement_, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT));
}

void SqliteStatement::bindNull(int index) {
  checkBind(statement_, sqlite3_bind_null(statement_, index));
}

bool SqliteStatement::step() {
  switch (sqlite3_step(statement_)) {
    case SQLITE_ROW:
      return true;
    case SQLITE_DONE:
      return false;
    default:
      throw SqliteError::fromConnection(sqlite3_db_handle(statement_),
                                        std::string("step \"") + sqlite3_sql(statement_) + "\"");
  }
}

void SqliteStatement::run() {
  while (step()) {
  }
}

std::string_view SqliteStatement::columnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement_, column));
  if (text == nullptr) {
    return {};
  }
  return {text, static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
}

std::int64_t SqliteStatement::columnInt64(int column) const {
  return sqlite3_column_int64(statement_, column);
}

double SqliteStatement::columnDouble(int column) const {
  return sqlite3_column_double(statement_, column);
}

bool SqliteStatement::columnIsNull(int column) const {
  return sqlite3_column_type(statement_, column) == SQLITE_NULL;
}

std::span<const std::byte> SqliteStatement::columnBlob(int column) const {
  const void* data = sqlite3_column_blob(statement_, column);
  if (data == nullptr) {
    return {};
  }
  return {static_cast<const std::byte*>(data),
          static_cast<std::size_t>(sqlite3_column_bytes(statement_, column))};
}

void SqliteStatement::reset() noexcept {
  sqlite3_reset(statement_);
  sqlite3_clear_bindings(statement_);
}

}  // namespace benchd::sqlite
