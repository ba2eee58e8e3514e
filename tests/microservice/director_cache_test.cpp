// DirectorCache, the microservice core's internal cache: its size bound.

#include "director_cache.hpp"

#include "manual_clock.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace benchd::microservice {
namespace {

using namespace std::chrono_literals;
using testing::ManualClock;

constexpr std::array<std::string_view, 3> kHotDirectors = {"Allen", "Hitchcock", "Kubrick"};

/// A cache whose loader answers "[<name>]" and counts its loads per name.
class DirectorCacheBoundTest : public ::testing::Test {
 protected:
  [[nodiscard]] int loadsOf(const std::string& name) {
    const std::lock_guard lock(mutex_);
    return loads_[name];
  }

  /// get() on a fresh thread, whose mirror is empty, so the authoritative level answers.
  std::string getOnNewThread(std::string_view name) {
    std::string answer;
    std::thread([&] { answer = *cache_.get(name); }).join();
    return answer;
  }

  std::mutex mutex_;
  std::map<std::string, int, std::less<>> loads_;
  DirectorCache cache_{std::make_shared<ManualClock>(), 1h, [this](std::string_view name) {
                         const std::lock_guard lock(mutex_);
                         ++loads_[std::string(name)];
                         return "[" + std::string(name) + "]";
                       }};
};

TEST_F(DirectorCacheBoundTest, UniqueNamesKeepTheSizeAtTheBoundAndHotNamesStillHit) {
  for (const std::string_view hot : kHotDirectors) {
    static_cast<void>(cache_.get(hot));
  }
  constexpr std::size_t kUniqueNames = 4 * DirectorCache::kMaxEntries;
  for (std::size_t index = 0; index < kUniqueNames; ++index) {
    static_cast<void>(cache_.get("unique-" + std::to_string(index)));
    ASSERT_LE(cache_.size(), DirectorCache::kMaxEntries) << "after " << index + 1 << " names";
    if (index % 64 == 0) {  // the hot directors keep being asked for, as in the scenarios
      for (const std::string_view hot : kHotDirectors) {
        EXPECT_EQ(*cache_.get(hot), "[" + std::string(hot) + "]");
      }
    }
  }
  EXPECT_EQ(cache_.size(), DirectorCache::kMaxEntries);
  for (const std::string_view hot : kHotDirectors) {
    EXPECT_EQ(getOnNewThread(hot), "[" + std::string(hot) + "]");
    EXPECT_EQ(loadsOf(std::string(hot)), 1) << hot << " was loaded again";
  }
  EXPECT_EQ(cache_.misses(), static_cast<std::int64_t>(kHotDirectors.size() + kUniqueNames));
}

TEST_F(DirectorCacheBoundTest, TheLeastRecentlyUsedEntryMakesRoom) {
  for (std::size_t index = 0; index < DirectorCache::kMaxEntries; ++index) {
    static_cast<void>(getOnNewThread("name-" + std::to_string(index)));
  }
  EXPECT_EQ(cache_.size(), DirectorCache::kMaxEntries);
  static_cast<void>(getOnNewThread("name-0"));  // now name-1 is the least recently used
  static_cast<void>(getOnNewThread("one-more"));
  EXPECT_EQ(cache_.size(), DirectorCache::kMaxEntries);
  static_cast<void>(getOnNewThread("name-0"));
  static_cast<void>(getOnNewThread("name-2"));
  EXPECT_EQ(loadsOf("name-0"), 1);
  EXPECT_EQ(loadsOf("name-2"), 1);
  static_cast<void>(getOnNewThread("name-1"));
  EXPECT_EQ(loadsOf("name-1"), 2);
}

TEST_F(DirectorCacheBoundTest, EvictDropsEntriesFromTheBoundedLevel) {
  static_cast<void>(cache_.get("Allen"));
  static_cast<void>(cache_.get("Kubrick"));
  const std::array<std::string, 2> evicted = {"Allen", "Lynch"};
  cache_.evict(evicted);
  EXPECT_EQ(cache_.size(), 1U);
  static_cast<void>(cache_.get("Allen"));
  EXPECT_EQ(loadsOf("Allen"), 2);
  EXPECT_EQ(cache_.size(), 2U);
}

}  // namespace
}  // namespace benchd::microservice

namespace benchd::microservice {
namespace {

/// find() and store(), the path of callers that load answers themselves (the postgres profile).
TEST(DirectorCacheFindTest, MissesThenHitsWhatWasStoredWithoutCallingTheLoader) {
  auto clock = std::make_shared<testing::ManualClock>();
  int loads = 0;
  DirectorCache cache(clock, std::chrono::hours(1), [&loads](std::string_view) {
    ++loads;
    return std::string("loaded");
  });
  const DirectorCache::Lookup miss = cache.find("Allen");
  EXPECT_EQ(miss.json, nullptr);
  EXPECT_EQ(cache.misses(), 1);
  cache.store("Allen", "[stored]", miss.generation);
  const DirectorCache::Lookup hit = cache.find("Allen");
  ASSERT_NE(hit.json, nullptr);
  EXPECT_EQ(*hit.json, "[stored]");
  EXPECT_EQ(*cache.get("Allen"), "[stored]");  // get() sees it too
  std::string on_another_thread;
  std::thread([&] { on_another_thread = *cache.find("Allen").json; }).join();
  EXPECT_EQ(on_another_thread, "[stored]");
  EXPECT_EQ(cache.hits(), 3);
  EXPECT_EQ(loads, 0);

  clock->advance(std::chrono::hours(1));  // expired: a miss again
  EXPECT_EQ(cache.find("Allen").json, nullptr);
}

TEST(DirectorCacheFindTest, AnAnswerLoadedAcrossAnEvictionIsNotCached) {
  DirectorCache cache(std::make_shared<testing::ManualClock>(), std::chrono::hours(1),
                      [](std::string_view) { return std::string("loaded"); });
  const DirectorCache::Lookup miss = cache.find("Allen");
  const std::array<std::string, 1> changed = {"Allen"};
  cache.evict(changed);  // a save changed Allen's movies while the answer was being loaded
  cache.store("Allen", "[stale]", miss.generation);
  EXPECT_EQ(cache.find("Allen").json, nullptr);
  EXPECT_EQ(cache.size(), 0U);
}

}  // namespace
}  // namespace benchd::microservice
