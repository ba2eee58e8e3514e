// estimateClockOffset on stamps made up with a known offset and known delays.
#include <benchd/agent/clock_offset.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace {

using benchd::agent::ClockSample;
using benchd::agent::estimateClockOffset;

/// A round trip to an agent whose clock is `offset` ahead: `out` µs there, `busy` µs in the
/// agent, `back` µs back, sent at coordinator time `at`.
ClockSample roundTrip(std::int64_t at, std::int64_t offset, std::int64_t out, std::int64_t busy,
                      std::int64_t back) {
  return {at, at + out + offset, at + out + busy + offset, at + out + busy + back};
}

TEST(ClockOffset, SymmetricDelaysGiveTheOffsetExactly) {
  const std::vector<ClockSample> samples = {roundTrip(1'000'000, 2'500, 200, 30, 200)};
  const auto estimate = estimateClockOffset(samples);
  EXPECT_EQ(estimate.offset_micros, 2'500);
  EXPECT_EQ(estimate.round_trip_micros, 400);
  EXPECT_EQ(estimate.uncertainty_micros, 200);
}

TEST(ClockOffset, TheShortestRoundTripWinsAndBoundsTheError) {
  // A behind clock; one sample queued 9 ms on its way out, one 4 ms on its way back, one not.
  const std::vector<ClockSample> samples = {roundTrip(0, -70'000, 9'150, 10, 150),
                                            roundTrip(50'000, -70'000, 150, 10, 4'150),
                                            roundTrip(90'000, -70'000, 150, 10, 170)};
  const auto estimate = estimateClockOffset(samples);
  EXPECT_EQ(estimate.round_trip_micros, 320);
  EXPECT_EQ(estimate.offset_micros, -70'010);  // the 20 µs asymmetry halves into the estimate
  EXPECT_LE(std::abs(estimate.offset_micros - -70'000), estimate.uncertainty_micros);
}

TEST(ClockOffset, NoSamplesOrStampsOutOfOrderAreRefused) {
  EXPECT_THROW((void)estimateClockOffset({}), std::invalid_argument);
  const std::vector<ClockSample> backwards = {{100, 50, 40, 200}};
  EXPECT_THROW((void)estimateClockOffset(backwards), std::invalid_argument);
}

}  // namespace
