// The verdict on one fixed-rate trial of a capacity search.
#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

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

TEST(TrialJudge, AFailureWhileTheGeneratorIsBusyIsTheGenerators) {
  // Its CPU at 90 % of its cores: its own delays drop arrivals even at the full rate achieved.
  const CapacityGoal goal = CapacityGoal::parse("p99<=50ms");
  TrialMeasurement busy = heldTrial();
  busy.dropped_arrivals = 200;
  busy.generator_cpu_share = 0.89;
  EXPECT_EQ(judgeTrial(goal, busy).outcome, TrialOutcome::kFail);
  busy.generator_cpu_share = 0.91;
  EXPECT_EQ(judgeTrial(goal, busy).outcome, TrialOutcome::kGeneratorSaturated);
  busy.dropped_arrivals = 0;
  EXPECT_EQ(judgeTrial(goal, busy).outcome, TrialOutcome::kPass);  // a pass stays a pass
}

TEST(TrialJudge, TheShortfallABusyGeneratorCausesIsNamedAsItsAndAPassStaysAPass) {
  const CapacityGoal goal = CapacityGoal::parse("p99<=50ms");
  TrialMeasurement busy = heldTrial();
  busy.generator_cpu_share = 0.97;
  EXPECT_EQ(judgeTrial(goal, busy).outcome, TrialOutcome::kPass);
  busy.achieved_requests_per_second = 700.0;
  const TrialVerdict verdict = judgeTrial(goal, busy);
  EXPECT_EQ(verdict.outcome, TrialOutcome::kGeneratorSaturated);
  EXPECT_EQ(verdict.reason,
            "the load generator was busy (97 % of its CPU), so the failure may be its own: "
            "achieved 700 of 1000 req/s");
}

TEST(TrialJudge, ALowerGoalPercentileLeavesMoreOfTheRateUndone) {
  // A p90 goal leaves 10 % of the arrivals late or dropped: 92 % achieved still holds it.
  TrialMeasurement trial = heldTrial();
  trial.achieved_requests_per_second = 920.0;
  EXPECT_EQ(judgeTrial(CapacityGoal::parse("p90<=50ms"), trial).outcome, TrialOutcome::kPass);
  EXPECT_EQ(judgeTrial(CapacityGoal::parse("p99<=50ms"), trial).outcome, TrialOutcome::kFail);
}

TEST(TrialJudge, TheAllowanceIsTheNearestRankOnesForEveryPercentile) {
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p99<=50ms"), 1000), 10U);
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p99.9<=50ms"), 10'000), 10U);
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p90<=50ms"), 1000), 100U);
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p80<=50ms"), 10), 2U);
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p99<=50ms"), 50), 0U);  // ⌈49.5⌉ = 50
  EXPECT_EQ(allowedAboveBound(CapacityGoal::parse("p99<=50ms"), 0), 0U);
}

/// One test second as the load generator stores it: `fast` requests at 1 ms, `slow` at 80 ms.
results::SecondRecord secondWith(std::uint64_t fast, std::uint64_t slow, std::uint64_t dropped,
                                 std::uint64_t errors = 0) {
  results::SecondRecord second;
  second.load.latency_buckets = {{1'000, 1'000, fast}, {80'000, 80'063, slow}};
  second.load.counters.dropped_arrivals = dropped;
  second.load.counters.errors[measurement::ErrorClass::kHttp5xx] = errors;
  return second;
}

TEST(CertainFailure, EndsATrialOnceMoreArrivalsAreLateThanTheGoalLeavesOfAllItWillMake) {
  // 1,000 req/s for 5 s under p99 <= 50 ms: 50 of the 5,000 arrivals may be late or dropped.
  const CapacityGoal goal = CapacityGoal::parse("p99<=50ms");
  CertainFailure watch(goal, 1000, 5);
  EXPECT_FALSE(watch(secondWith(990, 10, 0)));
  EXPECT_FALSE(watch(secondWith(980, 15, 5)));  // 30 so far
  EXPECT_FALSE(watch(secondWith(980, 20, 0)));  // 50: still within
  EXPECT_TRUE(watch(secondWith(999, 1, 0)));    // 51
  // A bucket that straddles the bound is not counted: the judge decides those.
  CertainFailure straddling(goal, 1000, 5);
  results::SecondRecord second;
  second.load.latency_buckets = {{49'990, 50'050, 500}};
  EXPECT_FALSE(straddling(second));
  // A failed request ends it at once.
  CertainFailure errors(goal, 1000, 5);
  EXPECT_TRUE(errors(secondWith(999, 0, 0, 1)));
}

TEST(CertainFailure, NeverEndsATrialTheJudgeWouldPass) {
  // At the allowance exactly the judge passes (dropped arrivals counted above the bound) and
  // the watch has not fired; one more and both fail.
  const CapacityGoal goal = CapacityGoal::parse("p99.9<=50ms");
  for (const std::uint64_t late : {std::uint64_t{10}, std::uint64_t{11}}) {
    CertainFailure watch(goal, 2000, 5);  // 10,000 arrivals: 10 may be late
    const bool ended = watch(secondWith(10'000 - late, late, 0));
    measurement::LatencyHistogram latency;  // what the phase's histogram reads
    latency.record(1'000, 10'000 - late);
    latency.record(80'000, late);
    TrialMeasurement trial = heldTrial();
    trial.intended_requests_per_second = 2000.0;
    trial.achieved_requests_per_second = 2000.0;
    trial.requests_ok = 10'000;
    trial.goal_latency_millis =
        static_cast<double>(latency.valueAtPercentile(servedPercentileFor(goal, 10'000, 0))) /
        1000.0;
    const bool passes = judgeTrial(goal, trial).outcome == TrialOutcome::kPass;
    EXPECT_NE(ended, passes) << late;
  }
}

TEST(WarmStart, LaterRoundsStartAtTheMedianFoundSoFarInSmallerSteps) {
  scenario::ScenarioRow row;
  row.name = "held";
  row.requests_per_second = 500;
  const CapacitySearchSettings cold = capacitySettingsFor(row, 0.03, std::nullopt);
  EXPECT_DOUBLE_EQ(cold.start_rate, 500.0);
  EXPECT_DOUBLE_EQ(cold.step_factor, 2.0);
  EXPECT_DOUBLE_EQ(cold.resolution, 0.03);

  std::vector<results::SummaryRow> finished;
  for (const double rate : {1'000.0, 1'400.0, 1'200.0, 0.0}) {
    results::SummaryRow run;
    run.scenario = "held";
    run.approach = "a";
    run.capacity =
        results::CapacityResult{"p99<=50ms", rate, 0.0, rate > 0 ? "found" : "none", 8, 0.03};
    finished.push_back(run);
  }
  results::SummaryRow other = finished.front();
  other.approach = "b";
  other.capacity->requests_per_second = 9'000.0;
  finished.push_back(other);
  EXPECT_FALSE(warmStartRate(finished, "held", "c").has_value());
  // A search that found none is left out; another approach's runs too.
  const std::optional<double> warm = warmStartRate(finished, "held", "a");
  ASSERT_TRUE(warm.has_value());
  EXPECT_DOUBLE_EQ(*warm, 1'200.0);
  const CapacitySearchSettings settings = capacitySettingsFor(row, 0.03, warm);
  EXPECT_DOUBLE_EQ(settings.start_rate, 1'200.0);
  EXPECT_DOUBLE_EQ(settings.step_factor, kWarmStepFactor);
}

}  // namespace
}  // namespace benchd::runner
