// A capacity row's latency goal as written in the scenario file's capacityGoal column.
#include <benchd/scenario/capacity_goal.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace benchd::scenario {
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
  EXPECT_NE(refusal("p99<=61s").find("at most 60 s"), std::string::npos);
  EXPECT_NE(refusal("p99<=1e20ms").find("at most 60 s"), std::string::npos);
  EXPECT_EQ(refusal("p99<=60s"), "");
  EXPECT_EQ(refusal("p50<=5ms"), "");
}

}  // namespace
}  // namespace benchd::scenario
