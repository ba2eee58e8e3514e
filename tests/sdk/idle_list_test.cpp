// sdk::IdleList: the order idle upstream connections are handed out in and when they expire,
// with the time passed in (no clock, no sleeps).
#include <benchd/sdk/idle_list.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace benchd::sdk {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const Clock::time_point kStart{};
constexpr auto kIdleTimeout = std::chrono::seconds(30);

bool anyUsable(const int& /*item*/) {
  return true;
}

TEST(IdleList, HandsOutTheMostRecentlyReturnedFirst) {
  IdleList<int> idle(kIdleTimeout);
  idle.put(1, kStart);
  idle.put(2, kStart + 1s);
  idle.put(3, kStart + 2s);
  std::vector<int> dropped;
  EXPECT_EQ(idle.take(kStart + 3s, anyUsable, dropped), 3);
  EXPECT_EQ(idle.take(kStart + 3s, anyUsable, dropped), 2);
  idle.put(4, kStart + 4s);
  EXPECT_EQ(idle.take(kStart + 5s, anyUsable, dropped), 4);
  EXPECT_EQ(idle.take(kStart + 5s, anyUsable, dropped), 1);
  EXPECT_EQ(idle.take(kStart + 5s, anyUsable, dropped), std::nullopt);
  EXPECT_TRUE(dropped.empty());
}

TEST(IdleList, TheBottomOfABurstExpiresWhileTheTopIsReused) {
  // A burst leaves ten connections idle; a steady trickle afterwards reuses the top one. The
  // nine below it must be closed once idle for the timeout, not kept for ever.
  IdleList<int> idle(kIdleTimeout);
  for (int i = 0; i < 10; ++i)
    idle.put(i, kStart);
  std::vector<int> dropped;
  for (auto now = kStart + 1s; now < kStart + 60s; now += 1s) {
    auto item = idle.take(now, anyUsable, dropped);
    ASSERT_TRUE(item.has_value());
    idle.put(*item, now);
  }
  EXPECT_EQ(idle.size(), 1U);
  EXPECT_EQ(dropped.size(), 9U);
}

TEST(IdleList, ExpiresExactlyAtTheIdleTimeout) {
  IdleList<int> idle(kIdleTimeout);
  idle.put(1, kStart);
  idle.put(2, kStart + 10s);
  std::vector<int> dropped;
  idle.expire(kStart + kIdleTimeout - 1ms, dropped);
  EXPECT_TRUE(dropped.empty());
  idle.expire(kStart + kIdleTimeout, dropped);
  EXPECT_EQ(dropped, std::vector<int>{1});
  EXPECT_EQ(idle.size(), 1U);
  // Taking after everything expired yields nothing and drops the rest.
  EXPECT_EQ(idle.take(kStart + 10s + kIdleTimeout, anyUsable, dropped), std::nullopt);
  EXPECT_EQ(dropped, (std::vector<int>{1, 2}));
  EXPECT_TRUE(idle.empty());
}

TEST(IdleList, UnusableItemsAreDroppedNotHandedOut) {
  // E.g. connections whose peer has closed them.
  IdleList<int> idle(kIdleTimeout);
  idle.put(1, kStart);
  idle.put(2, kStart);
  idle.put(3, kStart);
  std::vector<int> dropped;
  const auto odd = [](const int& item) { return item % 2 == 1; };
  EXPECT_EQ(idle.take(kStart, odd, dropped), 3);
  EXPECT_EQ(idle.take(kStart, odd, dropped), 1);
  EXPECT_EQ(dropped, std::vector<int>{2});
  EXPECT_TRUE(idle.empty());
}

TEST(IdleList, ClearDropsEverything) {
  IdleList<int> idle(kIdleTimeout);
  idle.put(1, kStart);
  idle.put(2, kStart);
  std::vector<int> dropped;
  idle.clear(dropped);
  EXPECT_EQ(dropped.size(), 2U);
  EXPECT_TRUE(idle.empty());
}

}  // namespace
}  // namespace benchd::sdk
