#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace benchd::scenario {

/// The header names, in column order (column 1 is kScenarioColumns[0]): the original's nine,
/// then benchd's optional tenth, capacityGoal, and eleventh, streamsPerConnection (a file has 9,
/// 10 or 11 columns).
inline constexpr std::array<std::string_view, 11> kScenarioColumns = {
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
};
/// Columns every file has: the original's.
inline constexpr std::size_t kRequiredScenarioColumns = 9;

}  // namespace benchd::scenario
