#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace benchd::scenario {

/// The header names, in column order (column 1 is kScenarioColumns[0]): the original's nine,
/// then benchd's optional tenth, capacityGoal, eleventh, streamsPerConnection, and twelfth,
/// requestCount (a file has 9 to 12 columns).
inline constexpr std::array<std::string_view, 12> kScenarioColumns = {
    "scenario",
    "k6Config",
    "serverProfiles",
    "delayCallDepth",
    "delayInMillis",
    "connections",
    "requestsPerSecond",
    "warmupDurationInSeconds",
    "testDurationInSeconds",
    "capacityGoal",
    "streamsPerConnection",
    "requestCount",
};
/// Columns every file has: the original's.
inline constexpr std::size_t kRequiredScenarioColumns = 9;

}  // namespace benchd::scenario
