// sdk::DatabaseSessionStock against a host table whose sessions are counters: the budget is
// the host's db_pool_size(), idle sessions are reused before new ones open, a failed open is
// not counted, and take(lock) opens with the owner's lock released.
#include <benchd/sdk/database_session_stock.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <mutex>

namespace {

struct FakeHost {
  std::uint32_t pool_size = 2;
  bool refuse_open = false;
  std::mutex* lock_to_check = nullptr;  // db_open records whether this was held
  bool opened_under_lock = false;
  int opens = 0;
  int closes = 0;
  std::array<char, 8> addresses{};
};

// db_close gets only the session: it finds its host through this (one test at a time).
FakeHost* current_host = nullptr;

benchd_host_api hostApi(FakeHost& host) {
  current_host = &host;
  benchd_host_api api{};
  api.struct_size = sizeof(api);
  api.host_context = &host;
  api.db_pool_size = [](void* context) { return static_cast<FakeHost*>(context)->pool_size; };
  api.db_open = [](void* context, benchd_db_session** session, benchd_error* error) {
    auto& fake = *static_cast<FakeHost*>(context);
    if (fake.lock_to_check != nullptr) {
      const bool free = fake.lock_to_check->try_lock();
      if (free)
        fake.lock_to_check->unlock();
      fake.opened_under_lock = fake.opened_under_lock || !free;
    }
    if (fake.refuse_open) {
      std::strncpy(error->message, "the host has no session", sizeof(error->message) - 1);
      return BENCHD_ERR_STATE;
    }
    ++fake.opens;
    // Any distinct address will do: the fake never dereferences a session.
    *session = reinterpret_cast<benchd_db_session*>(
        &fake.addresses.at(static_cast<std::size_t>(fake.opens)));
    return BENCHD_OK;
  };
  api.db_close = [](benchd_db_session*) { ++current_host->closes; };
  return api;
}

TEST(DatabaseSessionStock, OpensUpToThePoolSizeThenReportsAllBusy) {
  FakeHost host;
  const benchd_host_api api = hostApi(host);
  benchd::sdk::DatabaseSessionStock stock(&api);
  benchd::sdk::DatabaseSession first = stock.take();
  benchd::sdk::DatabaseSession second = stock.take();
  const benchd::sdk::DatabaseSession third = stock.take();
  EXPECT_TRUE(first.isOpen());
  EXPECT_TRUE(second.isOpen());
  EXPECT_FALSE(third.isOpen());
  EXPECT_EQ(host.opens, 2);
  EXPECT_EQ(stock.opened(), 2);

  stock.putBack(std::move(first));
  EXPECT_TRUE(stock.hasIdle());
  const benchd::sdk::DatabaseSession again = stock.take();
  EXPECT_TRUE(again.isOpen());
  EXPECT_EQ(host.opens, 2) << "an idle session is reused before another opens";
  EXPECT_FALSE(stock.hasIdle());
}

TEST(DatabaseSessionStock, AClosedSessionMakesRoomAndIdleOnesCloseTogether) {
  FakeHost host;
  const benchd_host_api api = hostApi(host);
  benchd::sdk::DatabaseSessionStock stock(&api);
  benchd::sdk::DatabaseSession first = stock.take();
  benchd::sdk::DatabaseSession second = stock.take();
  stock.closeOne(std::move(first));
  EXPECT_EQ(host.closes, 1);
  EXPECT_EQ(stock.opened(), 1);
  EXPECT_TRUE(stock.take().isOpen()) << "the closed session's place opens a new one";
  EXPECT_EQ(host.opens, 3);

  stock.putBack(std::move(second));
  const int closed_before = host.closes;
  stock.closeIdle();
  EXPECT_FALSE(stock.hasIdle());
  EXPECT_EQ(host.closes, closed_before + 1);
  EXPECT_EQ(stock.opened(), 1) << "the session in use stays counted";
  EXPECT_FALSE(stock.takeIdle().isOpen());
}

TEST(DatabaseSessionStock, AFailedOpenThrowsAndIsNotCounted) {
  FakeHost host;
  host.refuse_open = true;
  const benchd_host_api api = hostApi(host);
  benchd::sdk::DatabaseSessionStock stock(&api);
  EXPECT_THROW((void)stock.take(), benchd::sdk::PluginError);
  EXPECT_EQ(stock.opened(), 0);
  host.refuse_open = false;
  EXPECT_TRUE(stock.take().isOpen());
  EXPECT_EQ(stock.opened(), 1);
}

TEST(DatabaseSessionStock, TakeWithALockOpensWithTheLockReleasedAndHoldsItAgain) {
  FakeHost host;
  std::mutex mutex;
  host.lock_to_check = &mutex;
  const benchd_host_api api = hostApi(host);
  benchd::sdk::DatabaseSessionStock stock(&api);
  std::unique_lock lock(mutex);
  const benchd::sdk::DatabaseSession session = stock.take(lock);
  EXPECT_TRUE(session.isOpen());
  EXPECT_FALSE(host.opened_under_lock);
  EXPECT_TRUE(lock.owns_lock());

  host.refuse_open = true;
  EXPECT_THROW((void)stock.take(lock), benchd::sdk::PluginError);
  EXPECT_TRUE(lock.owns_lock()) << "held again after a failed open too";
  EXPECT_EQ(stock.opened(), 1);
}

}  // namespace
