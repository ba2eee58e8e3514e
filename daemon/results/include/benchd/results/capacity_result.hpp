#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::results {

/// The column a run with capacity rows adds to results.csv (after the 28 of kMetricNames): the
/// rate each capacity search found, ranked higher-is-better like every `requests` metric. Rows
/// of other scenarios, and failed searches, leave it missing (nan).
inline constexpr std::string_view kCapacityMetric = "requests_per_second_capacity";

/// What a capacity search found for one run of a (capacity row, approach): the highest
/// open-model arrival rate whose fixed-rate trial held the row's latency goal with no errors
/// (docs/scenarios.md#capacity-rows). The run's 28 metrics are those of that trial, measured
/// at that rate.
struct CapacityResult {
  std::string goal;                  ///< the row's goal as written back, e.g. "p99<=50ms"
  double requests_per_second = 0.0;  ///< the rate found; 0 when no rate held
  double failed_at = 0.0;            ///< the lowest rate above it that failed; 0 if none did
  /// How the search ended (runner::verdictName): found, none, generator-saturated,
  /// at-maximum or trial-limit.
  std::string verdict;
  std::uint32_t trials = 0;
  /// The resolution it ran at (a share): it stopped once the bracket was that narrow relative
  /// to its low end, or within 1 req/s.
  double resolution = 0.0;

  /// The search stopped below the server's limit (the load generator saturated, or the highest
  /// rate asked held): the rate is a lower bound, not the capacity.
  [[nodiscard]] bool lowerBound() const {
    return verdict == "generator-saturated" || verdict == "at-maximum";
  }
};

/// One fixed-rate trial of a capacity search, as stored (table capacity_trial) and served.
struct CapacityTrialRecord {
  std::uint32_t trial = 0;  ///< from 1, in the order they ran
  double intended_requests_per_second = 0.0;
  double achieved_requests_per_second = 0.0;
  double goal_latency_millis = 0.0;  ///< the goal's percentile of the corrected latency
  double latency_p50_millis = 0.0;
  double latency_p99_millis = 0.0;
  std::uint64_t requests_ok = 0;
  std::uint64_t requests_error = 0;
  std::uint64_t dropped_arrivals = 0;
  double generator_cpu_percent = 0.0;  ///< the load generator's average, % of one core
  /// pass, fail or generator-saturated (a failure while the generator was busy: CPU at 90 % of
  /// its cores or more, so the failure may be its own).
  std::string outcome;
  bool confirmation = false;  ///< a second trial at the bracket's low end
  std::string reason;         ///< why it failed; empty for a pass
  /// Where its test phase is among the result's stored test seconds (load_second.idx).
  std::uint32_t first_second = 0;
  std::uint32_t last_second = 0;
};

}  // namespace benchd::results
