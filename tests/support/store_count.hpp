#pragma once
// Polling a benchd store from a test while a run writes it: how many rows a count query finds.

#include <filesystem>

namespace benchd::testing {

/// The single integer `count_sql` (a `SELECT count(*) ...`) returns on the SQLite file `file`,
/// opened read-only; 0 while the file does not exist yet or cannot answer (a store being
/// created). For waiting on a run's progress, not for asserting on a finished store.
int countInStore(const std::filesystem::path& file, const char* count_sql);

}  // namespace benchd::testing
