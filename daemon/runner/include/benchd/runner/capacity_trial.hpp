#pragma once

#include <benchd/runner/capacity_search.hpp>
#include <benchd/scenario/capacity_goal.hpp>

#include <cstdint>
#include <string>

namespace benchd::runner {

/// What a fixed-rate trial measured, in the terms its verdict needs (from the load generator's
/// phase result: the corrected histogram, the error counts, the arrival ledger, its self-check).
struct TrialMeasurement {
  double intended_requests_per_second = 0.0;
  double achieved_requests_per_second = 0.0;
  /// The goal's percentile of the corrected latency, every dropped arrival counted as a
  /// request above any bound: read from the served requests at servedPercentileFor().
  double goal_latency_millis = 0.0;
  std::uint64_t requests_ok = 0;
  std::uint64_t requests_error = 0;
  std::uint64_t dropped_arrivals = 0;  ///< arrivals with no free connection to send on
  bool generator_saturated = false;    ///< loadgen::SaturationJudge's verdict on the trial
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

/// The rate is held when no request failed, the dropped arrivals are within the share the goal
/// leaves (1 % for p99), the goal's percentile (dropped arrivals counted above the bound) is
/// within its bound, and the achieved rate is at least loadgen::kAchievedShare of the intended
/// one. A trial that fails while the generator was saturated is kGeneratorSaturated: the
/// generator, not the server, fell short. A trial with no successful request fails. Pure.
[[nodiscard]] TrialVerdict judgeTrial(const scenario::CapacityGoal& goal,
                                      const TrialMeasurement& trial);

}  // namespace benchd::runner
