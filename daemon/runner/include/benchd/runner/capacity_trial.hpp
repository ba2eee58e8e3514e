#pragma once

#include <benchd/runner/capacity_search.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace benchd::runner {

/// A latency goal a capacity search holds each trial to: the `percentile` of the corrected
/// latency (timed from each request's intended send) at most `bound_millis`. Written as
/// `p99<=50ms`, `p99.9<=200ms`, `p50<=5ms` or `p99<=1.5s`.
struct CapacityGoal {
  double percentile = 99.0;  ///< above 0, below 100
  double bound_millis = 0.0;

  /// The goal as written by parse(), e.g. "p99<=50ms".
  [[nodiscard]] std::string text() const;

  /// Throws std::invalid_argument saying what was expected and what `text` holds.
  [[nodiscard]] static CapacityGoal parse(std::string_view text);
};

/// What a fixed-rate trial measured, in the terms its verdict needs (from the load generator's
/// phase result: the corrected histogram, the error counts, the arrival ledger, its self-check).
struct TrialMeasurement {
  double intended_requests_per_second = 0.0;
  double achieved_requests_per_second = 0.0;
  double goal_latency_millis = 0.0;  ///< the goal's percentile of the corrected latency
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

/// The rate is held when the goal's percentile is within its bound, no request failed, no
/// arrival was dropped, and the achieved rate is at least loadgen::kAchievedShare of the intended
/// one. A trial that fails while the generator was saturated is kGeneratorSaturated: the
/// generator, not the server, fell short. A trial with no successful request fails. Pure.
[[nodiscard]] TrialVerdict judgeTrial(const CapacityGoal& goal, const TrialMeasurement& trial);

}  // namespace benchd::runner
