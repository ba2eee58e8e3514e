// The closed-model executors against a real benchd-worker: constant-vus with and without the
// global rate cap, ramping-vus, graceful stops, request mixes and think time.
#include "engine_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

// The cap's arithmetic is tested exactly on a manual clock
// (TokenSchedule.TwentyVusOnAManualClockSendExactlyTheCappedRate). On the wall clock, under
// ctest -j on shared cores, only the gross effect is asserted: uncapped, 20 VUs on 20 ms
// requests send about 3,000 in 3 s; capped at 200/s, 600.
TEST(ClosedModel, RateCapHoldsTheSharedRateRealTime) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantVus)},
                                   scenario::RateCapSource::kScenarioRequestsPerSecond);
  const auto phase = runWorkload(workload, 20, 200, 3, targetOf(20), testOptions());
  const measurement::PhaseResult& result = phase.result;
  EXPECT_GE(result.totals.requests_ok, 300U);
  EXPECT_LE(result.totals.requests_ok, 700U);
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_EQ(result.totals.connects, 20U);
  EXPECT_GE(result.latency.valueAtPercentile(50), 20'000U);
  EXPECT_NEAR(result.intended_requests_per_second, 200.0, 40.0);
  EXPECT_EQ(result.uncorrected_latency.count(), 0U) << "closed model: no uncorrected samples";
  EXPECT_EQ(result.peak_active_vus, 20U);
}

TEST(ClosedModel, TheRateCapHoldsForOpenModelSubScenariosToo) {
  // Half the connections loop (closed), half serve 50 arrivals per second (open); together
  // they may send 100 per second. Before the open half took slots too, it came on top: 150/s.
  auto closed = subScenario(ExecutorKind::kConstantVus);
  closed.name = "closed";
  closed.connection_share = 0.5;
  auto open = subScenario(ExecutorKind::kConstantArrivalRate);
  open.name = "open";
  open.connection_share = 0.5;
  const auto workload =
      workloadOf({closed, open}, scenario::RateCapSource::kScenarioRequestsPerSecond);
  const auto phase = runWorkload(workload, 10, 100, 3, targetOf(1), testOptions());
  const measurement::PhaseResult& result = phase.result;
  // Generous bounds: 300 slots in 3 s; 450 requests when the open half ignores the cap.
  EXPECT_GE(result.totals.requests_sent, 240U);
  EXPECT_LE(result.totals.requests_sent, 350U);
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_NEAR(result.intended_requests_per_second, 100.0, 15.0) << "the cap, not cap + arrivals";
}

TEST(ClosedModel, WithoutCapEveryVuLoopsAndLatencyIncludesTheDelay) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantVus)});
  const auto phase = runWorkload(workload, 10, std::nullopt, 2, targetOf(50), testOptions());
  const measurement::PhaseResult& result = phase.result;
  // 10 VUs looping on 50 ms requests: about 200 per second at most.
  EXPECT_GE(result.totals.requests_ok, 100U);
  EXPECT_LE(result.totals.requests_ok, 440U);
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_GE(result.latency.min(), 50'000U);
  EXPECT_EQ(result.latency.count(), result.totals.requests_ok);
  EXPECT_EQ(result.intended_requests_per_second, 0.0) << "closed model without a rate";
  ASSERT_FALSE(phase.snapshots.empty());
  EXPECT_EQ(phase.snapshots.front().active_vus, 10U);
  EXPECT_GT(result.totals.bytes_sent, 0U);
  EXPECT_GT(result.totals.bytes_received, result.totals.requests_ok * 13);
}

TEST(ClosedModel, SeveralThreadsShareTheVusAndTheCap) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantVus)},
                                   scenario::RateCapSource::kScenarioRequestsPerSecond);
  const auto phase = runWorkload(workload, 9, 150, 2, targetOf(5), testOptions(10s, 2));
  EXPECT_EQ(phase.result.generator_threads, 2U);
  EXPECT_EQ(phase.result.totals.connects, 9U);
  EXPECT_GE(phase.result.totals.requests_ok, 270U);
  EXPECT_LE(phase.result.totals.requests_ok, 330U);
  EXPECT_EQ(phase.result.totals.errors.total(), 0U);
}

TEST(ClosedModel, RampingVusFollowTheStageTargets) {
  auto sub = subScenario(ExecutorKind::kRampingVus);
  sub.start_target_fraction = 0.0;
  sub.stages = {{0.5, 1.0}, {0.5, 0.0}};
  sub.think_time = scenario::ThinkTime{20ms, 60ms};
  const auto workload = workloadOf({sub});
  const scenario::StagePlan plan = scenario::planStages(workload, {20, std::nullopt, 6s});
  const auto phase = runWorkload(workload, 20, std::nullopt, 6, targetOf(5), testOptions(10s, 2));
  ASSERT_GE(phase.snapshots.size(), 6U);
  for (const measurement::LoadSnapshot& snapshot : phase.snapshots) {
    const auto end =
        std::chrono::duration_cast<std::chrono::milliseconds>(snapshot.start + snapshot.duration);
    const double target = std::floor(plan.sub_scenarios[0].targetAt(end));
    EXPECT_NEAR(static_cast<double>(snapshot.active_vus), target, 2.5)
        << "snapshot " << snapshot.index << " ending at " << end.count() << " ms";
  }
  EXPECT_GE(phase.result.peak_active_vus, 17U);
  EXPECT_LE(phase.result.peak_active_vus, 20U);
  EXPECT_EQ(phase.result.totals.errors.total(), 0U);
  EXPECT_EQ(phase.result.totals.interrupted_requests, 0U);
  // Each VU started connects once (the 20th only if a tick lands on the peak).
  EXPECT_GE(phase.result.totals.connects, 18U);
}

TEST(ClosedModel, ThePeakCountsVusBetweenSnapshots) {
  // Like sharp-spikes: each 1 s cycle ramps 0 -> 20 VUs -> 0, so every snapshot instant (a
  // second boundary) finds 0 VUs, while 20 ran in the middle of each cycle.
  auto sub = subScenario(ExecutorKind::kRampingVus);
  sub.start_target_fraction = 0.0;
  sub.stages = {{0.25, 1.0}, {0.25, 0.0}};
  sub.stage_cycles = 2;
  sub.graceful_ramp_down = 1s;
  const auto phase =
      runWorkload(workloadOf({sub}), 20, std::nullopt, 2, targetOf(2), testOptions(10s, 2));
  ASSERT_GE(phase.snapshots.size(), 2U);
  EXPECT_LE(phase.snapshots[0].active_vus, 3U) << "the ramp is back near 0 at 1 s";
  // The control tick (10 ms) sees the top of each ramp, 20 VUs, or 19 a tick before it.
  EXPECT_GE(phase.snapshots[0].peak_active_vus, 19U);
  EXPECT_LE(phase.snapshots[0].peak_active_vus, 20U);
  EXPECT_GE(phase.result.peak_active_vus, 19U);
  EXPECT_LE(phase.result.peak_active_vus, 20U);
  EXPECT_GE(phase.result.totals.connects, 38U) << "each cycle connects every VU anew";
}

TEST(ClosedModel, RampDownLetsRequestsInFlightFinishWithinTheGrace) {
  // 6 VUs hold 0.5 s, then the target drops to 0 at once while their 400 ms requests run.
  auto sub = subScenario(ExecutorKind::kRampingVus);
  sub.start_target_fraction = 1.0;
  sub.stages = {{0.25, 1.0}, {0.0, 0.0}, {0.75, 0.0}};
  sub.graceful_ramp_down = 2s;
  const auto phase =
      runWorkload(workloadOf({sub}), 6, std::nullopt, 2, targetOf(400), testOptions());
  EXPECT_EQ(phase.result.totals.interrupted_requests, 0U);
  EXPECT_EQ(phase.result.totals.errors.total(), 0U);
  EXPECT_GE(phase.result.totals.requests_ok, 6U);
  EXPECT_EQ(phase.snapshots.back().active_vus, 0U);
}

TEST(ClosedModel, RequestsBeyondTheGracefulStopAreInterruptedNotFailed) {
  auto sub = subScenario(ExecutorKind::kConstantVus);
  sub.graceful_stop = 100ms;
  const auto phase =
      runWorkload(workloadOf({sub}), 4, std::nullopt, 1, targetOf(1500), testOptions());
  EXPECT_EQ(phase.result.totals.interrupted_requests, 4U);
  EXPECT_EQ(phase.result.totals.errors.total(), 0U);
  EXPECT_EQ(phase.result.totals.requests_ok, 0U);
  EXPECT_EQ(phase.result.latency.count(), 0U);
  EXPECT_LT(phase.result.duration, 1500ms) << "the phase ends at its graceful stop";
}

TEST(ClosedModel, ThinkTimePacesEachVu) {
  auto sub = subScenario(ExecutorKind::kConstantVus);
  sub.think_time = scenario::ThinkTime{200ms, 300ms};
  const auto phase = runWorkload(workloadOf({sub}), 5, std::nullopt, 3, targetOf(0), testOptions());
  // Each VU: one request per 200-300 ms of thinking, so 10 to 15 in 3 s.
  EXPECT_GE(phase.result.totals.requests_ok, 5U * 9);
  EXPECT_LE(phase.result.totals.requests_ok, 5U * 16);
}

TEST(ClosedModel, SubScenariosRunInParallelWithTheirOwnMix) {
  auto good = subScenario(ExecutorKind::kConstantVus);
  good.connection_share = 0.5;
  good.think_time = scenario::ThinkTime{10ms, 10ms};
  auto mixed = good;
  mixed.name = "mixed";
  mixed.requests[0].weight = 3.0;
  scenario::RequestTemplate missing;
  missing.weight = 1.0;
  missing.method = "GET";
  missing.path_template = "/{approach}/no-such-endpoint";
  mixed.requests.push_back(missing);
  const auto phase =
      runWorkload(workloadOf({good, mixed}), 8, std::nullopt, 2, targetOf(0), testOptions(10s, 2));
  const measurement::LoadCounters& totals = phase.result.totals;
  const auto not_found = totals.errors[measurement::ErrorClass::kHttp4xx];
  EXPECT_EQ(totals.errors.total(), not_found);
  // Half the VUs send a quarter of their requests to a missing path: about 1/8 of all.
  const double share =
      static_cast<double>(not_found) / static_cast<double>(totals.requestsCompleted());
  EXPECT_GT(share, 0.05);
  EXPECT_LT(share, 0.22);
  EXPECT_EQ(phase.result.peak_active_vus, 8U);
}

}  // namespace
}  // namespace benchd::loadgen
