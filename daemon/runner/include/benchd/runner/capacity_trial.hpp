#pragma once

#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/runner/capacity_search.hpp>
#include <benchd/scenario/capacity_goal.hpp>
#include <benchd/scenario/scenario_row.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchd::runner {

/// What a fixed-rate trial measured, in the terms its verdict needs (from the load generator's
/// phase result: the corrected histogram, the error counts, the arrival ledger, its self-check).
struct TrialMeasurement {
  /// The test phase's own intended and achieved rates (measurement::PhaseResult: the rate its
  /// sub-scenarios were given, and its completions over the same phase), so the comparison is
  /// like for like.
  double intended_requests_per_second = 0.0;
  double achieved_requests_per_second = 0.0;
  /// The goal's percentile of the corrected latency, every dropped arrival counted as a
  /// request above any bound: read from the served requests at servedPercentileFor().
  double goal_latency_millis = 0.0;
  std::uint64_t requests_ok = 0;
  std::uint64_t requests_error = 0;
  std::uint64_t dropped_arrivals = 0;  ///< arrivals with no free connection to send on
  /// The load generator's CPU over the trial's test phase as a share of the cores it may use
  /// (1: all busy).
  double generator_cpu_share = 0.0;
};

/// A trial's outcome and, for a failure, one sentence saying why.
struct TrialVerdict {
  TrialOutcome outcome = TrialOutcome::kFail;
  std::string reason;  ///< empty for a pass
};

/// Which percentile of the served requests' latencies is the goal's percentile of all arrivals
/// when the `dropped` ones (no free connection: never served) count as above any bound:
/// percentile × (served + dropped) / served, at most 100. A p99 goal leaves 1 % of the arrivals
/// to be late or dropped, not 1 % late and none dropped.
[[nodiscard]] double servedPercentileFor(const scenario::CapacityGoal& goal, std::uint64_t served,
                                         std::uint64_t dropped);

/// Of `arrivals`, how many may be above the goal's bound or dropped with the goal still held:
/// arrivals − ⌈percentile/100 × arrivals⌉, the nearest-rank rule the latency histogram reads
/// its percentiles by (10 of 1,000 for p99). The judge and the early stop both count by it.
[[nodiscard]] std::uint64_t allowedAboveBound(const scenario::CapacityGoal& goal,
                                              std::uint64_t arrivals);

/// The rate is held when no request failed, the dropped arrivals are within what the goal
/// leaves (allowedAboveBound), the goal's percentile (dropped arrivals counted above the bound)
/// is within its bound, and the achieved rate is at least the smaller of
/// loadgen::kAchievedShare and the goal's percentile of the intended one (a p90 goal leaves 10 %
/// of the arrivals undone). A trial that fails while the load generator was busy (its CPU at
/// loadgen::kSaturatedCpuShare of its cores or more, where its own delays drop and delay
/// arrivals) is kGeneratorSaturated: the failure may be the generator's, not the server's. A
/// trial with no successful request fails. Pure.
[[nodiscard]] TrialVerdict judgeTrial(const scenario::CapacityGoal& goal,
                                      const TrialMeasurement& trial);

/// Whether a trial has certainly failed already, asked after each of its test seconds (a
/// RowRun EndsEarly): a failed request, or more arrivals above the goal's bound or dropped than
/// allowedAboveBound leaves of all the arrivals the trial will make. Counts only the histogram
/// buckets wholly above the bound, and the arrivals of a cut-short trial are fewer than planned,
/// so it never ends a trial that judgeTrial would pass. One per trial; not thread-safe (the
/// load generator's snapshot callback calls it, one second at a time).
class CertainFailure {
 public:
  CertainFailure(const scenario::CapacityGoal& goal, std::uint32_t rate,
                 std::uint32_t test_seconds);

  bool operator()(const results::SecondRecord& second);

 private:
  std::uint64_t bound_micros_;
  std::uint64_t allowed_;
  std::uint64_t late_ = 0;  ///< arrivals above the bound or dropped so far
};

/// The search's settings for a capacity row at `resolution` (a share): from its
/// requestsPerSecond, doubling; or from `warm_start` in kWarmStepFactor steps.
[[nodiscard]] CapacitySearchSettings capacitySettingsFor(const scenario::ScenarioRow& row,
                                                         double resolution,
                                                         std::optional<double> warm_start);

/// Where a later round's search of (scenario, approach) starts: the median rate the earlier
/// rounds among `finished` found (searches that found none and failed runs left out); none
/// before the first such round. Each round's bracket still rests on its own trials, so this
/// saves trials, not independence; a resumed run computes the same from its stored results.
[[nodiscard]] std::optional<double> warmStartRate(const std::vector<results::SummaryRow>& finished,
                                                  const std::string& scenario,
                                                  const std::string& approach);

}  // namespace benchd::runner
