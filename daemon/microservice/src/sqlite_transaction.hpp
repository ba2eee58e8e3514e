#pragma once

#include "sqlite_connection.hpp"

namespace benchd::microservice {

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

}  // namespace benchd::microservice
