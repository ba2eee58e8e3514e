// The seconds of several load generators merged into the row's: exactly what one generator
// recording every sample would have measured, in order, with a lost or repeated second named.
#include <benchd/runner/second_merger.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace benchd::runner {
namespace {

using measurement::LoadSnapshot;
using measurement::NumberedSecond;
using measurement::PhaseKind;

NumberedSecond secondOf(std::uint64_t sequence, PhaseKind phase, std::uint32_t index) {
  NumberedSecond numbered;
  numbered.sequence = sequence;
  numbered.second.phase = phase;
  numbered.second.index = index;
  numbered.second.start = std::chrono::seconds(index);
  numbered.second.duration = std::chrono::seconds(1);
  return numbered;
}

/// Two generators each send test seconds 0..2 of known latencies (a third of the samples to
/// the first): every merged second equals the second one generator would have measured with
/// all the samples, its percentiles included, and the counts, rates and CPU add up.
TEST(SecondMerger, TwoGeneratorsMergeIntoWhatOneWouldHaveMeasured) {
  SecondMerger merger({"lab-gen-1", "lab-gen-2"});
  std::mt19937_64 random(3);
  std::lognormal_distribution<double> latency(11.0, 1.0);
  std::vector<LoadSnapshot> merged;
  for (std::uint32_t index = 0; index < 3; ++index) {
    measurement::LatencyHistogram whole;
    NumberedSecond parts[2] = {secondOf(index, PhaseKind::kTest, index),
                               secondOf(index, PhaseKind::kTest, index)};
    for (int sample = 0; sample < 3'000; ++sample) {
      const auto micros = static_cast<std::uint64_t>(latency(random));
      whole.record(micros);
      LoadSnapshot& part = parts[sample % 3 == 0 ? 0 : 1].second;
      part.latency.record(micros);
      ++part.counters.requests_ok;
      ++part.counters.requests_requested;
    }
    for (std::size_t g = 0; g < 2; ++g) {
      parts[g].second.intended_requests_per_second = 2'500.0;
      parts[g].second.active_vus = 100 + static_cast<std::uint32_t>(g);
      parts[g].second.peak_active_vus = 120;
      parts[g].second.generator_cpu_percent = g == 0 ? 40.0 : 55.0;
      parts[g].second.end_epoch_millis = 1'000 * (index + 1) + static_cast<std::int64_t>(g);
    }
    EXPECT_TRUE(merger.add(0, parts[0]).empty()) << "generator 2 has not sent it yet";
    const std::vector<LoadSnapshot> released = merger.add(1, parts[1]);
    ASSERT_EQ(released.size(), 1U);
    const LoadSnapshot& second = released.front();
    EXPECT_EQ(second.index, index);
    EXPECT_TRUE(second.latency == whole);
    EXPECT_EQ(second.latency.valueAtPercentile(99.0), whole.valueAtPercentile(99.0));
    EXPECT_EQ(second.counters.requests_ok, 3'000U);
    EXPECT_EQ(second.achieved_requests_per_second, 3'000.0);
    EXPECT_EQ(second.intended_requests_per_second, 5'000.0);
    EXPECT_EQ(second.active_vus, 201U);
    EXPECT_EQ(second.peak_active_vus, 240U);
    EXPECT_EQ(second.generator_cpu_percent, 95.0);
    EXPECT_EQ(second.generator_cores, 2U);
    EXPECT_EQ(second.end_epoch_millis, 1'000 * (index + 1) + 1);
  }
  EXPECT_EQ(merger.pendingSeconds(), 0U);
}

/// A generator ahead of the other holds nothing back of its own but gets nothing out either:
/// the row's seconds come out in order once the slower one catches up, warm-up before test.
TEST(SecondMerger, SecondsComeOutInOrderOnceEveryGeneratorSentThem) {
  SecondMerger merger({"a", "b"});
  EXPECT_TRUE(merger.add(1, secondOf(0, PhaseKind::kWarmup, 0)).empty());
  EXPECT_TRUE(merger.add(1, secondOf(1, PhaseKind::kTest, 0)).empty());
  EXPECT_TRUE(merger.add(1, secondOf(2, PhaseKind::kTest, 1)).empty());
  EXPECT_EQ(merger.pendingSeconds(), 3U);
  std::vector<LoadSnapshot> released = merger.add(0, secondOf(0, PhaseKind::kWarmup, 0));
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].phase, PhaseKind::kWarmup);
  EXPECT_TRUE(merger.add(0, secondOf(1, PhaseKind::kTest, 0)).size() == 1U);
  released = merger.add(0, secondOf(2, PhaseKind::kTest, 1));
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].index, 1U);
  EXPECT_EQ(merger.pendingSeconds(), 0U);
}

/// The last second of a phase is partial, and one generator may not reach it at all: when the
/// phase ends it comes out from the part that came, lasting to the latest end.
TEST(SecondMerger, APartialLastSecondComesOutWhenThePhaseEnds) {
  SecondMerger merger({"a", "b"});
  (void)merger.add(0, secondOf(0, PhaseKind::kTest, 0));
  (void)merger.add(1, secondOf(0, PhaseKind::kTest, 0));
  NumberedSecond last = secondOf(1, PhaseKind::kTest, 1);
  last.second.duration = std::chrono::milliseconds(400);
  last.second.counters.requests_ok = 40;
  EXPECT_TRUE(merger.add(0, last).empty());
  const std::vector<LoadSnapshot> released = merger.finishPhase(PhaseKind::kTest);
  ASSERT_EQ(released.size(), 1U);
  EXPECT_EQ(released[0].index, 1U);
  EXPECT_EQ(released[0].duration, std::chrono::milliseconds(400));
  EXPECT_EQ(released[0].achieved_requests_per_second, 100.0);
  EXPECT_EQ(merger.pendingSeconds(), 0U);
}

/// Each generator numbers its seconds from 0: a gap (seconds lost) and a repeat are errors that
/// name the generator, and nothing of it is merged.
TEST(SecondMerger, ALostOrRepeatedSecondNamesItsGenerator) {
  SecondMerger merger({"lab-gen-1", "lab-gen-2"});
  (void)merger.add(1, secondOf(0, PhaseKind::kTest, 0));
  try {
    (void)merger.add(1, secondOf(2, PhaseKind::kTest, 2));
    ADD_FAILURE() << "a gap was taken";
  } catch (const SecondMergeError& error) {
    EXPECT_STREQ(error.what(),
                 "load generator lab-gen-2 sent second 2 where 1 was next (seconds lost)");
  }
  try {
    (void)merger.add(1, secondOf(0, PhaseKind::kTest, 0));
    ADD_FAILURE() << "a repeat was taken";
  } catch (const SecondMergeError& error) {
    EXPECT_STREQ(error.what(),
                 "load generator lab-gen-2 sent second 0 where 1 was next (a second sent again)");
  }
  try {
    (void)merger.add(1, secondOf(1, PhaseKind::kTest, 0));
    ADD_FAILURE() << "the same (phase, index) twice was taken";
  } catch (const SecondMergeError& error) {
    EXPECT_STREQ(error.what(), "load generator lab-gen-2 sent test second 0 twice");
  }
  EXPECT_THROW((void)merger.add(2, secondOf(0, PhaseKind::kTest, 0)), SecondMergeError);
  EXPECT_THROW(SecondMerger({}), std::invalid_argument);
}

}  // namespace
}  // namespace benchd::runner
