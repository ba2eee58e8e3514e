// Load segments (EngineOptions::segment): engines that each make segment i of N of a row add up
// to the row, against the real benchd-worker the other load tests use.
#include "engine_test_support.hpp"
#include "token_schedule.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

EngineOptions segmentOptions(std::uint32_t index, std::uint32_t count, unsigned threads = 1) {
  EngineOptions options = testOptions(10s, threads);
  options.segment = {index, count};
  return options;
}

/// The open model's arrivals are a deterministic time line: two segments send the arrivals the
/// whole row sends, each exactly half (one the even-numbered ones, the other the odd), and
/// each plans half the row's rate.
TEST(LoadSegments, TwoOpenModelSegmentsSendTheWholeRowsArrivals) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantArrivalRate)});
  const auto whole = runWorkload(workload, 20, 200, 2, targetOf(5), testOptions());
  const auto first = runWorkload(workload, 20, 200, 2, targetOf(5), segmentOptions(0, 2));
  const auto second = runWorkload(workload, 20, 200, 2, targetOf(5), segmentOptions(1, 2, 2));
  const auto offered = [](const testing::CapturedPhase& phase) {
    return phase.result.totals.requests_sent + phase.result.totals.dropped_arrivals;
  };
  EXPECT_EQ(offered(whole), 400U);
  EXPECT_EQ(offered(first), 200U);
  EXPECT_EQ(offered(second), 200U);
  EXPECT_EQ(first.result.totals.errors.total() + second.result.totals.errors.total(), 0U);
  // The rates are over each phase's own length, which ends with its last answer: 2 % apart.
  EXPECT_NEAR(
      first.result.intended_requests_per_second + second.result.intended_requests_per_second,
      whole.result.intended_requests_per_second, 4.0);
  EXPECT_NEAR(first.result.intended_requests_per_second, 100.0, 5.0);
}

/// VU g of a closed row belongs to segment g mod N (and, within it, to a loop the same way):
/// 7 VUs over 2 segments of 2 threads each are 4 and 3.
TEST(LoadSegments, ClosedModelVusAreSplitAcrossSegmentsAndTheirLoops) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantVus)});
  const auto first =
      runWorkload(workload, 7, std::nullopt, 1, targetOf(20), segmentOptions(0, 2, 2));
  const auto second =
      runWorkload(workload, 7, std::nullopt, 1, targetOf(20), segmentOptions(1, 2, 2));
  EXPECT_EQ(first.result.peak_active_vus, 4U);
  EXPECT_EQ(second.result.peak_active_vus, 3U);
  EXPECT_GT(first.result.totals.requests_ok, 0U);
  EXPECT_GT(second.result.totals.requests_ok, 0U);
}

/// The rate cap's slots (j × N + i) / rate: segment i's share of the row's schedule.
TEST(LoadSegments, TheRateCapsSlotsAreInterleaved) {
  TokenSchedule first(100.0, 0, 2);
  TokenSchedule second(100.0, 1, 2);
  EXPECT_EQ(first.interval(), 20ms);
  EXPECT_EQ(first.acquire(0ns), 0ms);
  EXPECT_EQ(second.acquire(0ns), 10ms);
  EXPECT_EQ(first.acquire(0ns), 20ms);
  EXPECT_EQ(second.acquire(0ns), 30ms);
}

TEST(LoadSegments, AnImpossibleSegmentOrASplitRequestCountIsRefused) {
  const auto workload = workloadOf({subScenario(ExecutorKind::kConstantVus)});
  EXPECT_THROW((void)runWorkload(workload, 2, std::nullopt, 1, targetOf(0), segmentOptions(2, 2)),
               std::invalid_argument);
  EngineOptions counted = segmentOptions(0, 2);
  counted.request_limit = 100;
  EXPECT_THROW((void)runWorkload(workload, 2, std::nullopt, 1, targetOf(0), counted),
               std::invalid_argument);
}

}  // namespace
}  // namespace benchd::loadgen
