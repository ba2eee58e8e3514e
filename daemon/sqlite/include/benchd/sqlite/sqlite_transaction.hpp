#pragma once

#include <benchd/sqlite/sqlite_connection.hpp>

namespace benchd::sqlite {

/// A write transaction (BEGIN IMMEDIATE) that rolls back unless commit() was called.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(SqliteConnection& connection);
  ~SqliteTransaction();
  SqliteTransaction(const SqliteTransaction&) = delete;
  SqliteTransaction& operator=(const SqliteTransaction&) = delete;

  void commit();

 private:
  SqliteConnection& connection_;
  bool committed_ = false;
};

}  // namespace benchd::sqlite
