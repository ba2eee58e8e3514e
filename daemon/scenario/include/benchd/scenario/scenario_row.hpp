#pragma once

#include <benchd/scenario/capacity_goal.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::scenario {

/// The prefix of the profiles that choose the nested call's HTTP client ("client-curl"); a row
/// names at most one (microservice::kClientProfiles lists those benchd implements).
inline constexpr std::string_view kClientProfilePrefix = "client-";

/// One data row of a scenario CSV file: the original's nine positional columns and benchd's
/// optional tenth to twelfth, checked and converted. Column names in comments are the header names.
/// The most concurrent streams per connection a row may ask for (as `benchd load --streams`).
inline constexpr std::uint32_t kMaxStreamsPerConnection = 1000;

struct ScenarioRow {
  std::string name;      ///< scenario: names the results folder
  std::string workload;  ///< k6Config without a trailing ".js"
  /// serverProfiles split at '|'; may be empty; at most one names a client (kClientProfilePrefix)
  std::vector<std::string> server_profiles;
  std::uint32_t delay_call_depth = 0;  ///< delayCallDepth: nested self-calls before the wait
  std::uint32_t delay_millis = 0;      ///< delayInMillis: the wait at the innermost call
  std::uint32_t connections = 0;       ///< connections (k6 VUs); always > 0
  std::optional<std::uint32_t> requests_per_second;  ///< empty column: no rate given
  std::uint32_t warmup_seconds = 0;  ///< warmupDurationInSeconds; 0 skips the warm-up
  std::uint32_t test_seconds = 0;    ///< testDurationInSeconds; always > 0
  /// capacityGoal: a capacity search under this latency goal (docs/scenarios.md#capacity-rows),
  /// whose requestsPerSecond is the first trial's rate; empty for a fixed load (every original
  /// row).
  std::optional<CapacityGoal> capacity_goal;
  /// streamsPerConnection: HTTP/2's concurrent streams per connection (h2load's -m), each
  /// connection carrying this many VUs; 1 (an empty or absent column) for every other row. Above
  /// 1 only with the `h2` or `h2c` profile, at most kMaxStreamsPerConnection.
  std::uint32_t streams_per_connection = 1;
  /// requestCount: the request-count mode (h2load's -n): the test phase sends this many requests
  /// and ends when all of them have ended, or at testDurationInSeconds if that comes first (the
  /// duration is then an upper bound). Empty: the duration alone ends the test phase (every
  /// original row). Never with a capacity goal; the warm-up is timed either way.
  std::optional<std::uint32_t> request_count;
  std::size_t source_line = 0;  ///< 1-based line in the file the row came from
};

}  // namespace benchd::scenario
