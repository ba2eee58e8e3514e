#include <benchd/postgres/pg_transaction.hpp>

namespace benchd::postgres {

PgTransaction::PgTransaction(PgConnection& connection) : connection_(connection) {
  connection_.execute("BEGIN");
}

PgTransaction::~PgTransaction() {
  if (finished_)
    return;
  try {
    connection_.execute("ROLLBACK");
  } catch (...) {
    // Destructors do not throw. A connection that cannot roll back is broken, and the server
    // rolls back the transaction of a connection that closes.
  }
}

void PgTransaction::commit() {
  finished_ = true;  // a failed COMMIT has ended the transaction too: nothing to roll back
  connection_.execute("COMMIT");
}

}  // namespace benchd::postgres
