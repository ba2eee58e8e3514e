#include <benchd/loadgen/saturation.hpp>
#include <benchd/results/statistics.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
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

std::uint64_t allowedAboveBound(const scenario::CapacityGoal& goal, std::uint64_t arrivals) {
  // The small slack keeps 99 % of 1,000 at 990 where the product rounds to 990.0000000001.
  const double within = std::ceil(goal.percentile / 100.0 * static_cast<double>(arrivals) - 1e-9);
  return arrivals - std::min(arrivals, static_cast<std::uint64_t>(std::max(0.0, within)));
}

TrialVerdict judgeTrial(const scenario::CapacityGoal& goal, const TrialMeasurement& trial) {
  std::string reason;
  const std::uint64_t arrivals = trial.requests_ok + trial.dropped_arrivals;
  const double achieved_share = std::min(loadgen::kAchievedShare, goal.percentile / 100.0);
  if (trial.requests_ok == 0) {
    reason = "no request succeeded";
  } else if (trial.requests_error > 0) {
    reason = std::to_string(trial.requests_error) + " requests failed";
  } else if (trial.dropped_arrivals > allowedAboveBound(goal, arrivals)) {
    reason =
        std::to_string(trial.dropped_arrivals) + " arrivals found no free connection (" +
        fixed(100.0 * static_cast<double>(trial.dropped_arrivals) / static_cast<double>(arrivals),
              2) +
        " %; a p" + shortNumber(goal.percentile) + " goal leaves " +
        compact(100.0 - goal.percentile) +
        " %; raise the row's connections if the server is not the limit)";
  } else if (trial.achieved_requests_per_second <
             achieved_share * trial.intended_requests_per_second) {
    reason = "achieved " + fixed(trial.achieved_requests_per_second, 0) + " of " +
             fixed(trial.intended_requests_per_second, 0) + " req/s";
  } else if (trial.goal_latency_millis > goal.bound_millis) {
    reason = "p" + shortNumber(goal.percentile) + " " + fixed(trial.goal_latency_millis, 2) +
             " ms above the goal's " + shortNumber(goal.bound_millis) + " ms";
  }
  if (reason.empty()) {
    return {TrialOutcome::kPass, {}};
  }
  if (trial.generator_cpu_share >= loadgen::kSaturatedCpuShare) {
    return {TrialOutcome::kGeneratorSaturated,
            "the load generator was busy (" + fixed(100.0 * trial.generator_cpu_share, 0) +
                " % of its CPU), so the failure may be its own: " + reason};
  }
  return {TrialOutcome::kFail, reason};
}

CertainFailure::CertainFailure(const scenario::CapacityGoal& goal, std::uint32_t rate,
                               std::uint32_t test_seconds)
    : bound_micros_(static_cast<std::uint64_t>(std::ceil(goal.bound_millis * 1000.0))),
      allowed_(allowedAboveBound(goal, std::uint64_t{rate} * test_seconds)) {}

bool CertainFailure::operator()(const results::SecondRecord& second) {
  const measurement::LoadCounters& counters = second.load.counters;
  if (counters.errors.total() > 0) {
    return true;
  }
  late_ += counters.dropped_arrivals;
  for (const measurement::HistogramBucket& bucket : second.load.latency_buckets) {
    if (bucket.lowest_micros > bound_micros_) {
      late_ += bucket.count;
    }
  }
  return late_ > allowed_;
}

CapacitySearchSettings capacitySettingsFor(const scenario::ScenarioRow& row, double resolution,
                                           std::optional<double> warm_start) {
  CapacitySearchSettings settings;
  settings.resolution = resolution;
  settings.start_rate = row.requests_per_second.value_or(static_cast<std::uint32_t>(1'000));
  if (warm_start && *warm_start >= settings.min_rate) {
    settings.start_rate = *warm_start;
    settings.step_factor = kWarmStepFactor;
  }
  settings.max_trials = kMaxCapacityTrials;
  settings.max_rate = std::max(settings.max_rate, settings.start_rate);
  return settings;
}

std::optional<double> warmStartRate(const std::vector<results::SummaryRow>& finished,
                                    const std::string& scenario, const std::string& approach) {
  std::vector<double> rates;
  for (const results::SummaryRow& row : finished) {
    if (row.scenario == scenario && row.approach == approach && !row.failed && row.capacity &&
        row.capacity->requests_per_second > 0.0) {
      rates.push_back(row.capacity->requests_per_second);
    }
  }
  if (rates.empty()) {
    return std::nullopt;
  }
  return results::stats::median(rates);
}

}  // namespace benchd::runner
