// The verdict on one fixed-rate trial of a capacity search.
#include <benchd/runner/capacity_trial.hpp>

#include <gtest/gtest.h>

#include <string>

namespace benchd::runner {
namespace {

using scenario::CapacityGoal;

TrialMeasurement heldTrial() {
  TrialMeasurement trial;
  trial.intended_requests_per_second = 1000.0;
  trial.achieved_requests_per_second = 999.0;
  trial.goal_latency_millis = 12.0;
  trial.requests_ok = 5000;
  return trial;
}

TEST(TrialJudge, ATrialWithinTheGoalWithoutErrorsPasses) {
  const TrialVerdict verdict = judgeTrial(CapacityGoal::parse("p99<=50ms"), heldTrial());
  EXPECT_EQ(verdict.outcome, TrialOutcome::kPass);
  EXPECT_EQ(verdict.reason, "");
}

TEST(TrialJudge, EachShortfallFailsTheTrialAndIsNamed) {
  const CapacityGoal goal = CapacityGoal::parse("p99<=50ms");
  TrialMeasurement slow = heldTrial();
  slow.goal_latency_millis = 50.5;
  EXPECT_EQ(judgeTrial(goal, slow).outcome, TrialOutcome::kFail);
  EXPECT_EQ(judgeTrial(goal, slow).reason, "p99 50.50 ms above the goal's 50 ms");

  TrialMeasurement errors = heldTrial();
  errors.requests_error = 3;
  EXPECT_EQ(judgeTrial(goal, errors).reason, "3 requests failed");

  // 5,000 served: a p99 goal leaves 1 % of the arrivals, 50.6 of 5,060, to be dropped.
  TrialMeasurement dropped = heldTrial();
  dropped.dropped_arrivals = 50;
  EXPECT_EQ(judgeTrial(goal, dropped).outcome, TrialOutcome::kPass);
  dropped.dropped_arrivals = 60;
  EXPECT_EQ(judgeTrial(goal, dropped).reason,
            "60 arrivals found no free connection (1.19 %; a p99 goal leaves 1 %; raise the "
            "row's connections if the server is not the limit)");

  TrialMeasurement short_rate = heldTrial();
  short_rate.achieved_requests_per_second = 900.0;  // below 95 % of 1,000
  EXPECT_EQ(judgeTrial(goal, short_rate).reason, "achieved 900 of 1000 req/s");

  TrialMeasurement nothing = heldTrial();
  nothing.requests_ok = 0;
  EXPECT_EQ(judgeTrial(goal, nothing).reason, "no request succeeded");
}

TEST(TrialJudge, DroppedArrivalsCountAsAboveTheBoundInTheGoalsPercentile) {
  const CapacityGoal p99 = CapacityGoal::parse("p99<=50ms");
  EXPECT_DOUBLE_EQ(servedPercentileFor(p99, 1000, 0), 99.0);
  // 5 of 1,005 arrivals never served: the p99 of all arrivals is the p99.4975 of the served.
  EXPECT_DOUBLE_EQ(servedPercentileFor(p99, 1000, 5), 99.0 * 1005.0 / 1000.0);
  EXPECT_DOUBLE_EQ(servedPercentileFor(p99, 1000, 50), 100.0);
  EXPECT_DOUBLE_EQ(servedPercentileFor(p99, 0, 3), 100.0);
}

TEST(TrialJudge, AFailureWhileTheGeneratorSaturatedIsTheGeneratorsAndAPassStaysAPass) {
  const CapacityGoal goal = CapacityGoal::parse("p99<=50ms");
  TrialMeasurement saturated = heldTrial();
  saturated.generator_saturated = true;
  EXPECT_EQ(judgeTrial(goal, saturated).outcome, TrialOutcome::kPass);
  saturated.achieved_requests_per_second = 700.0;
  const TrialVerdict verdict = judgeTrial(goal, saturated);
  EXPECT_EQ(verdict.outcome, TrialOutcome::kGeneratorSaturated);
  EXPECT_EQ(verdict.reason, "the load generator saturated: achieved 700 of 1000 req/s");
}

}  // namespace
}  // namespace benchd::runner
