#pragma once

namespace benchd::control::testing {

/// The header line of a scenario CSV file, for the scenario files the control tests write and
/// upload.
inline constexpr const char* kScenarioCsvHeader =
    "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
    "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n";

}  // namespace benchd::control::testing
