// The open-model executors against a real benchd-worker: the arrival time line, dropped and
// late arrivals, corrected versus uncorrected latency.
#include "engine_test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

TEST(OpenModel, ConstantArrivalRateSendsTheIntendedRate) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)});
  const auto phase = runWorkload(workload, 20, 200, 3, targetOf(10), testOptions());
  const measurement::PhaseResult& result = phase.result;
  EXPECT_GE(result.totals.requests_sent, 570U);
  EXPECT_LE(result.totals.requests_sent, 630U);
  EXPECT_EQ(result.totals.dropped_arrivals, 0U);
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_NEAR(result.intended_requests_per_second, 200.0, 20.0);
  EXPECT_NEAR(result.achieved_requests_per_second, 200.0, 20.0);
  EXPECT_EQ(result.uncorrected_latency.count(), result.latency.count());
  EXPECT_GE(result.uncorrected_latency.min(), 10'000U);
  // Corrected latency runs from the intended time, never after the actual send.
  EXPECT_GE(result.latency.valueAtPercentile(50), result.uncorrected_latency.valueAtPercentile(50));
  for (const measurement::LoadSnapshot& snapshot : phase.snapshots) {
    if (snapshot.duration >= 900ms && snapshot.start + snapshot.duration <= 3s) {
      EXPECT_NEAR(snapshot.intended_requests_per_second, 200.0, 25.0) << snapshot.index;
    }
  }
}

TEST(OpenModel, ArrivalsFindingNoFreeConnectionAreDropped) {
  // Two connections with 100 ms requests serve at most 20 of the 100 arrivals per second.
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)});
  const auto phase = runWorkload(workload, 2, 100, 3, targetOf(100), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GE(totals.dropped_arrivals, 150U);
  EXPECT_LE(totals.requests_sent, 80U);
  EXPECT_NEAR(static_cast<double>(totals.requests_sent + totals.dropped_arrivals), 300.0, 15.0);
  EXPECT_EQ(totals.late_arrivals, 0U);
  EXPECT_EQ(totals.errors.total(), 0U);
}

TEST(OpenModel, WaitingArrivalsAreTimedFromTheirIntendedSendTime) {
  // One connection, 50 ms requests, 40 arrivals per second: a queue builds up.
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)});
  auto options = testOptions();
  options.arrival_overflow = ArrivalOverflow::kWait;
  const auto phase = runWorkload(workload, 1, 40, 2, targetOf(50), options);
  const measurement::PhaseResult& result = phase.result;
  EXPECT_GT(result.totals.late_arrivals, 10U);
  EXPECT_LT(result.uncorrected_latency.valueAtPercentile(50), 150'000U);
  EXPECT_GT(result.latency.valueAtPercentile(90), 500'000U)
      << "queued arrivals wait for the connection";
  // What was not sent by the end is dropped: everything is accounted for.
  EXPECT_NEAR(static_cast<double>(result.totals.requests_sent + result.totals.dropped_arrivals),
              80.0, 3.0);
}

TEST(OpenModel, RampingArrivalRateFollowsTheStages) {
  auto sub = subScenario(ExecutorKind::kRampingArrivalRate);
  sub.start_target_fraction = 0.0;
  sub.stages = {{1.0, 1.0}};
  const auto workload = workloadOf({sub});
  // The rate ramps from 0 to 200/s over 3 s: N(t) = 200 t^2 / 6, arrival k due when N reaches
  // k + 1/2, so floor(N(t) + 1/2) arrivals are due before t and the phase has 300. The exact
  // arrival times are tested in ArrivalTimeline.ALinearRampFollowsTheIntegralOfTheRate; here
  // each check holds however late the machine runs the loop or the harvests: every arrival is
  // sent or dropped, none before it is due, and each interval's intended rate is the arrivals
  // due in it over its actual length.
  const auto due_before = [](std::chrono::microseconds elapsed) {
    const double seconds = std::min(3.0, std::chrono::duration<double>(elapsed).count());
    return std::floor(200.0 * seconds * seconds / 6.0 + 0.5);
  };
  const auto phase = runWorkload(workload, 20, 200, 3, targetOf(5), testOptions(10s, 2));
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_EQ(totals.requests_sent + totals.dropped_arrivals, 300U);
  // 20 connections with 5 ms requests are free for every arrival unless the loop stalls for
  // about 100 ms; a generous bound for a loaded machine.
  EXPECT_GE(totals.requests_sent, 270U);
  ASSERT_GE(phase.snapshots.size(), 3U);
  std::uint64_t sent_so_far = 0;
  for (const measurement::LoadSnapshot& snapshot : phase.snapshots) {
    const auto end = snapshot.start + snapshot.duration;
    sent_so_far += snapshot.counters.requests_sent;
    EXPECT_LE(static_cast<double>(sent_so_far), due_before(end))
        << "no arrival is sent before it is due; interval " << snapshot.index;
    // Within one arrival: the snapshot reports its interval rounded to microseconds.
    const double seconds = std::chrono::duration<double>(snapshot.duration).count();
    EXPECT_NEAR(snapshot.intended_requests_per_second * seconds,
                due_before(end) - due_before(snapshot.start), 1.0)
        << "interval " << snapshot.index;
  }
}

}  // namespace
}  // namespace benchd::loadgen
