#pragma once

namespace benchd::sqlite {
class SqliteConnection;
}

namespace benchd::store {

/// PRAGMA user_version: 0 for a new file.
int schemaVersionOf(sqlite::SqliteConnection& connection);

}  // namespace benchd::store
