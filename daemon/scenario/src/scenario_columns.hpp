#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace benchd::scenario {

/// The original's header names, in column order (column 1 is kScenarioColumns[0]).
inline constexpr std::array<std::string_view, 9> kScenarioColumns = {
    "scenario",
    "k6Config",
    "serverProfiles",
    "delayCallDepth",
    "delayInMillis",
    "connections",
    "requestsPerSecond",
    "warmupDurationInSeconds",
    "testDurationInSeconds",
};

}  // namespace benchd::scenario
