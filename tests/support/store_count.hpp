#pragma once
// Reading one number from a benchd store in a test: how many rows a count query finds while a
// run writes it, or a value of a finished store.

#include <filesystem>
#include <string>

namespace benchd::testing {

/// The single integer `count_sql` (a `SELECT count(*) ...`) returns on the SQLite file `file`,
/// opened read-only; 0 while the file does not exist yet or cannot answer (a store being
/// created). For waiting on a run's progress, or counting rows of a finished store.
int countInStore(const std::filesystem::path& file, const std::string& count_sql);

/// The single number `sql` returns on the file, opened read-only; NaN when it returns no row
/// or the file cannot answer.
double numberInStore(const std::filesystem::path& file, const std::string& sql);

}  // namespace benchd::testing
