#include <benchd/sqlite/sqlite_error.hpp>
#include <benchd/sqlite/sqlite_transaction.hpp>

namespace benchd::sqlite {

SqliteTransaction::SqliteTransaction(SqliteConnection& connection) : connection_(connection) {
  connection_.execute("BEGIN IMMEDIATE");
}

SqliteTransaction::~SqliteTransaction() {
  if (!committed_) {
    try {
      connection_.execute("ROLLBACK");
    } catch (const SqliteError&) {
      // The transaction is gone either way; a destructor must not throw.
    }
  }
}

void SqliteTransaction::commit() {
  connection_.execute("COMMIT");
  committed_ = true;
}

}  // namespace benchd::sqlite
