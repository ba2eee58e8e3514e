// sdk::SweptIdlePool and sdk::ConnectionBudget: the idle half and the capacity every blocking
// nested-call client (threads-asio's Beast client, threads-poco's sessions, libcurl's handles)
// is built on. Items here count their own closing instead of holding sockets.
#include <benchd/sdk/connection_budget.hpp>
#include <benchd/sdk/swept_idle_pool.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace benchd::sdk {
namespace {

using namespace std::chrono_literals;

/// A pooled "connection" that counts how many of its kind were closed.
struct CountedItem {
  CountedItem(int item_id, std::atomic<int>& closed_count) : id(item_id), closed(closed_count) {}
  ~CountedItem() { closed.fetch_add(1); }
  CountedItem(const CountedItem&) = delete;
  CountedItem& operator=(const CountedItem&) = delete;
  int id;
  std::atomic<int>& closed;
};
using Item = std::unique_ptr<CountedItem>;

bool anyUsable(const Item& /*item*/) {
  return true;
}

/// Waits (generously) until `closed` reaches `count`.
bool waitForClosed(const std::atomic<int>& closed, int count) {
  const auto give_up = std::chrono::steady_clock::now() + 10s;
  while (closed.load() < count && std::chrono::steady_clock::now() < give_up)
    std::this_thread::sleep_for(5ms);
  return closed.load() >= count;
}

TEST(SweptIdlePool, RunsNoSweeperUntilAConnectionIsPutBack) {
  // A worker whose rows use another client profile must not run this client's thread.
  std::atomic<int> closed{0};
  SweptIdlePool<Item> pool(30s);
  EXPECT_FALSE(pool.sweeping());
  EXPECT_EQ(pool.take(anyUsable), std::nullopt);
  EXPECT_FALSE(pool.sweeping());
  pool.put(std::make_unique<CountedItem>(1, closed));
  EXPECT_TRUE(pool.sweeping());
}

TEST(SweptIdlePool, HandsOutTheMostRecentlyReturnedAndClosesTheUnusable) {
  std::atomic<int> closed{0};
  SweptIdlePool<Item> pool(30s);
  for (int id = 1; id <= 3; ++id)
    pool.put(std::make_unique<CountedItem>(id, closed));
  auto taken = pool.take([](const Item& item) { return item->id != 3; });
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ((*taken)->id, 2);
  EXPECT_EQ(closed.load(), 1);  // 3, which its peer "closed"
  EXPECT_EQ(pool.size(), 1U);
}

TEST(SweptIdlePool, TheSweeperClosesExpiredConnectionsWhenNoCallComes) {
  std::atomic<int> closed{0};
  SweptIdlePool<Item> pool(50ms);
  for (int id = 1; id <= 3; ++id)
    pool.put(std::make_unique<CountedItem>(id, closed));
  EXPECT_TRUE(waitForClosed(closed, 3));
  EXPECT_EQ(pool.size(), 0U);
}

TEST(SweptIdlePool, DrainClosesTheIdleAndEveryConnectionPutBackAfterIt) {
  std::atomic<int> closed{0};
  SweptIdlePool<Item> pool(30s);
  pool.put(std::make_unique<CountedItem>(1, closed));
  pool.put(std::make_unique<CountedItem>(2, closed));
  pool.drain();
  EXPECT_EQ(closed.load(), 2);
  pool.put(std::make_unique<CountedItem>(3, closed));
  EXPECT_EQ(closed.load(), 3);
  EXPECT_EQ(pool.size(), 0U);
  EXPECT_EQ(pool.take(anyUsable), std::nullopt);
}

TEST(SweptIdlePool, DestructionStopsTheSweeperAndClosesWhatIsIdle) {
  std::atomic<int> closed{0};
  {
    SweptIdlePool<Item> pool(30s);
    pool.put(std::make_unique<CountedItem>(1, closed));
    pool.put(std::make_unique<CountedItem>(2, closed));
    EXPECT_EQ(closed.load(), 0);
  }
  EXPECT_EQ(closed.load(), 2);
}

TEST(ConnectionBudget, RacingCallersNeverTakeMoreThanTheCapacity) {
  constexpr std::int64_t kCapacity = 100;
  ConnectionBudget budget(kCapacity);
  std::atomic<int> granted{0};
  constexpr int kCallers = 8;
  std::vector<std::thread> callers;
  callers.reserve(kCallers);
  for (int t = 0; t < kCallers; ++t) {
    callers.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        if (budget.tryReserve())
          granted.fetch_add(1);
      }
    });
  }
  for (auto& caller : callers)
    caller.join();
  EXPECT_EQ(granted.load(), kCapacity);
  EXPECT_EQ(budget.inUse(), kCapacity);
  EXPECT_FALSE(budget.tryReserve());
  EXPECT_EQ(budget.inUse(), kCapacity);  // a refusal takes nothing
  budget.release();
  EXPECT_TRUE(budget.tryReserve());
  for (std::int64_t i = 0; i < kCapacity; ++i)
    budget.release();
  EXPECT_EQ(budget.inUse(), 0);
}

TEST(ConnectionBudget, DefaultsToTheContractsPoolCapacity) {
  ConnectionBudget budget;
  for (std::int64_t i = 0; i < kUpstreamPoolCapacity; ++i)
    ASSERT_TRUE(budget.tryReserve());
  EXPECT_FALSE(budget.tryReserve());
}

}  // namespace
}  // namespace benchd::sdk
