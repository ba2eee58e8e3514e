#pragma once

namespace benchd::testing {

/// The header line of a scenario CSV file, for the scenario files tests write and upload.
/// (The scenario parser's own tests spell it out instead: they test the format itself.)
inline constexpr const char* kScenarioCsvHeader =
    "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
    "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n";

}  // namespace benchd::testing
