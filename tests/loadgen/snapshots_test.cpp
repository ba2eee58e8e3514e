// Snapshots and phases: one snapshot per interval, totals equal to their sum, warm-up data
// discarded, early stop, limits checked before the phase starts.
#include "engine_test_support.hpp"

#include <benchd/loadgen/host_limits.hpp>

#include <gtest/gtest.h>

#include <thread>

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

scenario::Workload cappedGetTime() {
  return workloadOf({subScenario(ExecutorKind::kConstantVus)},
                    scenario::RateCapSource::kScenarioRequestsPerSecond);
}

// Real time, generous bounds: the intervals are contiguous and cover the phase exactly (that
// holds whatever the timing); their lengths and counts are only checked to be about right,
// since a loaded machine may delay a harvest. The arrival and cap arithmetic behind the counts
// is tested exactly in engine_parts_test.cpp.
TEST(Snapshots, ArriveOncePerSecondAndCoverThePhaseRealTime) {
  const auto phase = runWorkload(cappedGetTime(), 5, 100, 3, targetOf(5), testOptions());
  ASSERT_EQ(phase.snapshots.size(), 3U);
  std::chrono::microseconds expected_start{0};
  for (std::uint32_t index = 0; index < phase.snapshots.size(); ++index) {
    const LoadSnapshot& snapshot = phase.snapshots[index];
    EXPECT_EQ(snapshot.index, index);
    EXPECT_EQ(snapshot.phase, PhaseKind::kTest);
    EXPECT_EQ(snapshot.start, expected_start) << "intervals are contiguous";
    EXPECT_GE(snapshot.duration, 500ms);
    EXPECT_LE(snapshot.duration, 3s);
    EXPECT_GT(snapshot.counters.requests_ok, 0U);
    EXPECT_LE(snapshot.counters.requests_ok, 200U) << "the 100/s cap holds within each interval";
    EXPECT_GT(snapshot.end_epoch_millis, 1'600'000'000'000);
    EXPECT_EQ(snapshot.generator_cores, 1U);
    expected_start += snapshot.duration;
  }
  EXPECT_EQ(phase.result.duration, expected_start);
  EXPECT_EQ(phase.result.snapshot_count, 3U);
}

TEST(Snapshots, TotalsAreTheSumOfTheSnapshots) {
  auto sub = subScenario(ExecutorKind::kConstantVus);
  scenario::RequestTemplate missing = sub.requests[0];
  missing.path_template = "/{approach}/missing";
  sub.requests.push_back(missing);
  const auto phase =
      runWorkload(workloadOf({sub}, scenario::RateCapSource::kScenarioRequestsPerSecond), 6, 150, 2,
                  targetOf(2), testOptions(10s, 2));
  EXPECT_EQ(phase.result.totals, sumOf(phase.snapshots));
  LatencyHistogram merged;
  for (const LoadSnapshot& snapshot : phase.snapshots) {
    merged.add(snapshot.latency);
  }
  EXPECT_EQ(merged, phase.result.latency);
  EXPECT_EQ(phase.result.latency.count(), phase.result.totals.requests_requested);
  EXPECT_GT(phase.result.totals.errors[ErrorClass::kHttp4xx], 0U);
  EXPECT_GT(phase.result.totals.requests_ok, 0U);
}

TEST(Snapshots, WarmupIsRunFirstAndDiscarded) {
  scenario::ScenarioRow row;
  row.name = "warm";
  row.workload = "test-workload";
  row.connections = 4;
  row.requests_per_second = 100;
  row.warmup_seconds = 1;
  row.test_seconds = 2;
  row.delay_millis = 2;
  std::vector<LoadSnapshot> snapshots;
  LoadEngine engine(testOptions());
  const ScenarioResult result = engine.runScenario(
      row, cappedGetTime(), targetOf(0),
      [&snapshots](const LoadSnapshot& snapshot) { snapshots.push_back(snapshot); });
  ASSERT_TRUE(result.warmup.has_value());
  EXPECT_GT(result.warmup->totals.requests_ok, 50U);
  std::vector<LoadSnapshot> test_snapshots;
  std::size_t warmup_snapshots = 0;
  for (const LoadSnapshot& snapshot : snapshots) {
    if (snapshot.phase == PhaseKind::kWarmup) {
      EXPECT_TRUE(test_snapshots.empty()) << "warm-up snapshots come first";
      ++warmup_snapshots;
    } else {
      test_snapshots.push_back(snapshot);
    }
  }
  EXPECT_EQ(warmup_snapshots, 1U);
  ASSERT_EQ(test_snapshots.size(), 2U);
  EXPECT_EQ(result.test.phase, PhaseKind::kTest);
  EXPECT_EQ(result.test.totals, sumOf(test_snapshots)) << "the warm-up is in no test total";
  EXPECT_NEAR(static_cast<double>(result.test.totals.requests_ok), 200.0, 25.0);
  EXPECT_EQ(result.test.totals.connects, 4U) << "the test phase starts on fresh connections";
}

TEST(Snapshots, RequestStopEndsThePhaseEarly) {
  const scenario::StagePlan plan =
      scenario::planStages(cappedGetTime(), {4, 100, std::chrono::seconds(30)});
  LoadEngine engine(testOptions());
  std::jthread stopper([&engine] {
    std::this_thread::sleep_for(700ms);
    engine.requestStop();
  });
  const auto started = std::chrono::steady_clock::now();
  const PhaseResult result = engine.runPhase(plan, targetOf(0), PhaseKind::kTest, {});
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_GT(result.totals.requests_ok, 20U);
  EXPECT_LT(result.duration, 3s);
  EXPECT_EQ(result.totals.interrupted_requests, 0U);
}

TEST(Snapshots, AThrowingCallbackStopsThePhaseAndPropagates) {
  const scenario::StagePlan plan =
      scenario::planStages(cappedGetTime(), {2, 50, std::chrono::seconds(30)});
  LoadEngine engine(testOptions());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(engine.runPhase(plan, targetOf(0), PhaseKind::kTest,
                               [](const LoadSnapshot&) { throw std::runtime_error("store full"); }),
               std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(Snapshots, APlanBeyondTheHostsPortsFailsBeforeStarting) {
  const HostLimits limits = readHostLimits();
  if (!limits.ephemeral_ports || *limits.ephemeral_ports >= 60'000) {
    GTEST_SKIP() << "this host has a large ephemeral port range";
  }
  const scenario::StagePlan plan = scenario::planStages(
      workloadOf({subScenario(ExecutorKind::kConstantVus)}), {60'000, std::nullopt, 1s});
  LoadEngine engine(testOptions());
  try {
    engine.runPhase(plan, targetOf(0), PhaseKind::kTest, {});
    FAIL() << "expected a HostLimitError";
  } catch (const HostLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("net.ipv4.ip_local_port_range"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace benchd::loadgen
