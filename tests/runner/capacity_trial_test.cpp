// A capacity search's latency goals as written, and the verdict on one fixed-rate trial.
#include <benchd/runner/capacity_trial.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace benchd::runner {
namespace {

std::string refusal(std::string_view text) {
  try {
    (void)CapacityGoal::parse(text);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(CapacityGoal, ReadsPercentileBoundAndUnit) {
  const CapacityGoal p99 = CapacityGoal::parse("p99<=50ms");
  EXPECT_DOUBLE_EQ(p99.percentile, 99.0);
  EXPECT_DOUBLE_EQ(p99.bound_millis, 50.0);
  EXPECT_EQ(p99.text(), "p99<=50ms");
  const CapacityGoal tail = CapacityGoal::parse("p99.9<=1.5s");
  EXPECT_DOUBLE_EQ(tail.percentile, 99.9);
  EXPECT_DOUBLE_EQ(tail.bound_millis, 1500.0);
  EXPECT_EQ(tail.text(), "p99.9<=1500ms");
  EXPECT_EQ(CapacityGoal::parse(tail.text()).bound_millis, 1500.0);
}

TEST(CapacityGoal, ABadGoalIsRefusedSayingWhatWasExpected) {
  EXPECT_NE(refusal("99<=50ms").find("expected 'p'"), std::string::npos);
  EXPECT_NE(refusal("p100<=50ms").find("above 0 and below 100"), std::string::npos);
  EXPECT_NE(refusal("p0<=50ms").find("above 0 and below 100"), std::string::npos);
  EXPECT_NE(refusal("p99<50ms").find("'<='"), std::string::npos);
  EXPECT_NE(refusal("p99<=0ms").find("bound must be a number above 0"), std::string::npos);
  EXPECT_NE(refusal("p99<=50").find("unit must be ms or s"), std::string::npos);
  EXPECT_NE(refusal("p99<=50 ms").find("unit must be ms or s"), std::string::npos);
  EXPECT_NE(refusal("p99<=50us").find("'p99<=50us'"), std::string::npos);
  EXPECT_EQ(refusal("p50<=5ms"), "");
}

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

  TrialMeasurement dropped = heldTrial();
  dropped.dropped_arrivals = 7;
  EXPECT_NE(judgeTrial(goal, dropped).reason.find("7 arrivals found no free connection"),
            std::string::npos);

  TrialMeasurement short_rate = heldTrial();
  short_rate.achieved_requests_per_second = 900.0;  // below 95 % of 1,000
  EXPECT_EQ(judgeTrial(goal, short_rate).reason, "achieved 900 of 1000 req/s");

  TrialMeasurement nothing = heldTrial();
  nothing.requests_ok = 0;
  EXPECT_EQ(judgeTrial(goal, nothing).reason, "no request succeeded");
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
