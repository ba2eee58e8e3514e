#include <benchd/loadgen/saturation.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <system_error>

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

/// The leading decimal number of `text`, which it consumes; none if `text` starts otherwise.
bool readNumber(std::string_view& text, double& value) {
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec != std::errc() || !std::isfinite(value)) {
    return false;
  }
  text.remove_prefix(static_cast<std::size_t>(result.ptr - text.data()));
  return true;
}

}  // namespace

std::string CapacityGoal::text() const {
  return "p" + shortNumber(percentile) + "<=" + shortNumber(bound_millis) + "ms";
}

CapacityGoal CapacityGoal::parse(std::string_view text) {
  const auto refuse = [text](const std::string& why) -> CapacityGoal {
    throw std::invalid_argument("latency goal '" + std::string(text) + "': " + why +
                                " (expected e.g. p99<=50ms, p99.9<=200ms or p50<=1.5s)");
  };
  std::string_view rest = text;
  if (!rest.starts_with("p")) {
    return refuse("expected 'p' and a percentile first");
  }
  rest.remove_prefix(1);
  CapacityGoal goal;
  if (!readNumber(rest, goal.percentile) || goal.percentile <= 0.0 || goal.percentile >= 100.0) {
    return refuse("the percentile must be a number above 0 and below 100");
  }
  if (!rest.starts_with("<=")) {
    return refuse("expected '<=' after the percentile");
  }
  rest.remove_prefix(2);
  double bound = 0.0;
  if (!readNumber(rest, bound) || bound <= 0.0) {
    return refuse("the bound must be a number above 0");
  }
  if (rest == "ms") {
    goal.bound_millis = bound;
  } else if (rest == "s") {
    goal.bound_millis = bound * 1000.0;
  } else {
    return refuse("the bound's unit must be ms or s");
  }
  return goal;
}

TrialVerdict judgeTrial(const CapacityGoal& goal, const TrialMeasurement& trial) {
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
