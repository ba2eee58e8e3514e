#pragma once

#include <benchd/scenario/scenario_row.hpp>

#include <filesystem>
#include <string_view>
#include <vector>

namespace benchd::scenario {

class WorkloadCatalog;

/// The original's scenario file format: comma-separated, nine positional columns (scenario,
/// k6Config, serverProfiles, delayCallDepth, delayInMillis, connections, requestsPerSecond,
/// warmupDurationInSeconds, testDurationInSeconds). The first line is a header and is skipped
/// whatever it says; blank lines and lines whose first field starts with '#' are skipped.
/// Fields are trimmed of surrounding blanks, a trailing '\r' is ignored and there is no
/// quoting. Every row is checked against `workloads` (the workload must exist, an arrival-rate
/// workload needs requestsPerSecond, each sub-scenario must get at least one connection).
///
/// Returns the rows in file order, or throws ScenarioFileError for the first problem (also for a
/// file without rows); nothing partial is ever returned.
std::vector<ScenarioRow> loadScenarioFile(const std::filesystem::path& path,
                                          const WorkloadCatalog& workloads);

/// Same as loadScenarioFile for text already in memory; `source_name` is what error messages
/// call the file.
std::vector<ScenarioRow> parseScenarioText(std::string_view text, std::string_view source_name,
                                           const WorkloadCatalog& workloads);

}  // namespace benchd::scenario
