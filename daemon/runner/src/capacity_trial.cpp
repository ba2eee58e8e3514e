#include <benchd/loadgen/saturation.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <charconv>
#include <cstdio>

namespace benchd::runner {
namespace {

/// `value` in the shortest form that reads back the same (50, 99.9, 1.5).
std::string shortNumber(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return {text, result.ptr};
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

TrialVerdict judgeTrial(const scenario::CapacityGoal& goal, const TrialMeasurement& trial) {
  std::string reason;
  if (trial.requests_ok == 0) {
    reason = "no request succeeded";
  } else if (trial.requests_error > 0) {
    reason = std::to_string(trial.requests_error) + " requests failed";
  } else if (trial.dropped_arrivals > 0) {
    reason = std::to_string(trial.dropped_arrivals) +
             " arrivals found no free connection (raise the row's connections if the server "
             "is not the limit)";
  } else if (trial.achieved_requests_per_second <
             loadgen::kAchievedShare * trial.intended_requests_per_second) {
    reason = "achieved " + fixed(trial.achieved_requests_per_second, 0) + " of " +
             fixed(trial.intended_requests_per_second, 0) + " req/s";
  } else if (trial.goal_latency_millis > goal.bound_millis) {
    reason = "p" + shortNumber(goal.percentile) + " " + fixed(trial.goal_latency_millis, 2) +
             " ms above the goal's " + shortNumber(goal.bound_millis) + " ms";
  }
  if (reason.empty()) {
    return {TrialOutcome::kPass, {}};
  }
  if (trial.generator_saturated) {
    return {TrialOutcome::kGeneratorSaturated, "the load generator saturated: " + reason};
  }
  return {TrialOutcome::kFail, reason};
}

}  // namespace benchd::runner
