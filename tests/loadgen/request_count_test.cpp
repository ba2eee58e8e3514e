// Request-count mode (EngineOptions::request_limit, `benchd load --requests`): exactly N
// requests, and the phase ends when the last of them has.
#include "engine_test_support.hpp"

#include <gtest/gtest.h>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::sumOf;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

TEST(RequestCount, AClosedModelSendsExactlyNAndEndsThen) {
  auto options = testOptions(10s, 2);
  options.request_limit = 137;
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 5,
                                 std::nullopt, 30, targetOf(2), options);
  const measurement::PhaseResult& result = phase.result;
  EXPECT_EQ(result.totals.requests_sent, 137U);
  EXPECT_EQ(result.totals.requests_ok, 137U);
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_EQ(result.totals.interrupted_requests, 0U);
  EXPECT_EQ(result.latency.count(), 137U);
  // 137 requests of 2 ms over 5 connections take well under a second; the plan says 30 s.
  EXPECT_LT(result.duration, 10s);
  EXPECT_EQ(result.totals, sumOf(phase.snapshots)) << "reported like a timed run";
  EXPECT_EQ(result.snapshot_count, phase.snapshots.size());
}

TEST(RequestCount, AnOpenModelSendsExactlyNArrivals) {
  auto options = testOptions();
  options.request_limit = 40;
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)}), 4,
                                 200, 30, targetOf(1), options);
  EXPECT_EQ(phase.result.totals.requests_sent, 40U);
  EXPECT_EQ(phase.result.totals.requests_ok + phase.result.totals.errors.total(), 40U);
  EXPECT_LT(phase.result.duration, 10s);
}

TEST(RequestCount, FailuresCountSoADeadServerEndsTheRun) {
  auto options = testOptions();
  options.request_limit = 25;
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 2,
                                 std::nullopt, 30, targetOf(0, testing::closedPort()), options);
  EXPECT_EQ(phase.result.totals.errors[measurement::ErrorClass::kConnectionRefused], 25U);
  EXPECT_EQ(phase.result.totals.requests_sent, 25U);
  EXPECT_LT(phase.result.duration, 10s);
}

TEST(RequestCount, TheWarmupIsNotCounted) {
  scenario::ScenarioRow row;
  row.name = "counted";
  row.workload = "test-workload";
  row.connections = 2;
  row.warmup_seconds = 1;
  row.test_seconds = 30;
  auto sub = subScenario(ExecutorKind::kConstantVus);
  sub.think_time = scenario::ThinkTime{5ms, 5ms};
  auto options = testOptions();
  options.request_limit = 30;
  LoadEngine engine(options);
  const ScenarioResult result = engine.runScenario(row, workloadOf({sub}), targetOf(0), {});
  ASSERT_TRUE(result.warmup.has_value());
  // The warm-up ran its full second (far more than 30 requests at 5 ms think time).
  EXPECT_GT(result.warmup->totals.requests_sent, 30U);
  ASSERT_TRUE(result.test.has_value());
  EXPECT_EQ(result.test->totals.requests_sent, 30U);
}

}  // namespace
}  // namespace benchd::loadgen
