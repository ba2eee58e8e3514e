#include <benchd/loadgen/saturation.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <algorithm>
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

/// `value` to six significant digits without trailing zeros: 1 for 100 - 99, 0.1 for 100 - 99.9.
std::string compact(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

double servedPercentileFor(const scenario::CapacityGoal& goal, std::uint64_t served,
                           std::uint64_t dropped) {
  if (served == 0) {
    return 100.0;
  }
  const double arrivals = static_cast<double>(served) + static_cast<double>(dropped);
  return std::min(100.0, goal.percentile * arrivals / static_cast<double>(served));
}

TrialVerdict judgeTrial(const scenario::CapacityGoal& goal, const TrialMeasurement& trial) {
  std::string reason;
  const double arrivals =
      static_cast<double>(trial.requests_ok) + static_cast<double>(trial.dropped_arrivals);
  const double allowed_share = 1.0 - goal.percentile / 100.0;
  if (trial.requests_ok == 0) {
    reason = "no request succeeded";
  } else if (trial.requests_error > 0) {
    reason = std::to_string(trial.requests_error) + " requests failed";
  } else if (static_cast<double>(trial.dropped_arrivals) > allowed_share * arrivals) {
    reason = std::to_string(trial.dropped_arrivals) + " arrivals found no free connection (" +
             fixed(100.0 * static_cast<double>(trial.dropped_arrivals) / arrivals, 2) + " %; a p" +
             shortNumber(goal.percentile) + " goal leaves " + compact(100.0 * allowed_share) +
             " %; raise the row's connections if the server is not the limit)";
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
