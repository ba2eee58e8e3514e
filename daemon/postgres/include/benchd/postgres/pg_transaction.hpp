#pragma once

#include <benchd/postgres/pg_connection.hpp>

namespace benchd::postgres {

/// BEGIN on construction, ROLLBACK on destruction unless commit() was called (an exception
/// between the two undoes everything). Borrows the connection, which must outlive it.
class PgTransaction {
 public:
  explicit PgTransaction(PgConnection& connection);
  ~PgTransaction();
  PgTransaction(const PgTransaction&) = delete;
  PgTransaction& operator=(const PgTransaction&) = delete;

  void commit();

 private:
  PgConnection& connection_;
  bool finished_ = false;
};

}  // namespace benchd::postgres
