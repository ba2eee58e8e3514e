#include "expect_counters.hpp"
#include "json_test_support.hpp"
#include "manual_clock.hpp"

#include <benchd/microservice/movie_service.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace benchd::microservice {
namespace {

using namespace std::chrono_literals;
using testing::expectCounters;
using testing::ManualClock;
using testing::titlesOf;

class MovieServiceCacheTest : public ::testing::Test {
 protected:
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  MovieService service_{ServiceProfile{}, clock_};
};

TEST_F(MovieServiceCacheTest, StartsWithZeroCounters) {
  expectCounters(service_, 0, 0, 0);
}

TEST_F(MovieServiceCacheTest, FirstGetMissesAndQueriesSecondGetHits) {
  const auto first = service_.moviesByDirector("Allen");
  expectCounters(service_, 1, 0, 1);
  const auto second = service_.moviesByDirector("Allen");
  expectCounters(service_, 1, 1, 1);
  EXPECT_EQ(*first, *second);
}

TEST_F(MovieServiceCacheTest, DirectorsAreCachedSeparately) {
  static_cast<void>(service_.moviesByDirector("Allen"));
  static_cast<void>(service_.moviesByDirector("Kubrick"));
  static_cast<void>(service_.moviesByDirector("Allen"));
  static_cast<void>(service_.moviesByDirector("Kubrick"));
  expectCounters(service_, 2, 2, 2);
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Kubrick")).size(), 2U);
}

TEST_F(MovieServiceCacheTest, EmptyAnswersAreCachedToo) {
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
  expectCounters(service_, 1, 1, 1);
}

TEST_F(MovieServiceCacheTest, EntryExpiresAfterOneHour) {
  static_cast<void>(service_.moviesByDirector("Allen"));
  clock_->advance(59min + 59s);
  static_cast<void>(service_.moviesByDirector("Allen"));
  expectCounters(service_, 1, 1, 1);

  clock_->advance(1s);
  static_cast<void>(service_.moviesByDirector("Allen"));
  expectCounters(service_, 2, 1, 2);

  // The reload starts a new hour.
  clock_->advance(30min);
  static_cast<void>(service_.moviesByDirector("Allen"));
  expectCounters(service_, 2, 2, 2);
  clock_->advance(31min);
  static_cast<void>(service_.moviesByDirector("Allen"));
  expectCounters(service_, 3, 2, 3);
}

TEST_F(MovieServiceCacheTest, ExpiredEntryIsReloadedOnceForAllThreads) {
  static_cast<void>(service_.moviesByDirector("Allen"));
  std::thread([this] { static_cast<void>(service_.moviesByDirector("Allen")); }).join();
  expectCounters(service_, 1, 1, 1);
  clock_->advance(2h);
  static_cast<void>(service_.moviesByDirector("Allen"));
  std::thread([this] { static_cast<void>(service_.moviesByDirector("Allen")); }).join();
  expectCounters(service_, 2, 2, 2);
}

TEST_F(MovieServiceCacheTest, SecondGetFromAnotherThreadIsAHit) {
  static_cast<void>(service_.moviesByDirector("Hitchcock"));
  std::string seen_by_other_thread;
  std::thread([&] { seen_by_other_thread = *service_.moviesByDirector("Hitchcock"); }).join();
  expectCounters(service_, 1, 1, 1);
  EXPECT_EQ(seen_by_other_thread, *service_.moviesByDirector("Hitchcock"));
}

TEST_F(MovieServiceCacheTest, HitsAreCountedAfterTheirThreadsExit) {
  for (int thread_index = 0; thread_index < 3; ++thread_index) {
    std::thread([this] {
      for (int call = 0; call < 10; ++call) {
        static_cast<void>(service_.moviesByDirector("Kubrick"));
      }
    }).join();
  }
  expectCounters(service_, 1, 29, 1);
}

TEST_F(MovieServiceCacheTest, ConcurrentHitsAreCountedExactly) {
  static_cast<void>(service_.moviesByDirector("Allen"));
  static_cast<void>(service_.moviesByDirector("Hitchcock"));
  constexpr int kThreads = 8;
  constexpr int kCallsPerThread = 5000;
  const std::string allen = *service_.moviesByDirector("Allen");
  const std::string hitchcock = *service_.moviesByDirector("Hitchcock");

  std::vector<std::thread> threads;
  std::vector<int> wrong_answers(kThreads, 0);
  for (int thread_index = 0; thread_index < kThreads; ++thread_index) {
    threads.emplace_back([&, thread_index] {
      for (int call = 0; call < kCallsPerThread; ++call) {
        const bool ask_allen = (call + thread_index) % 2 == 0;
        const auto answer = service_.moviesByDirector(ask_allen ? "Allen" : "Hitchcock");
        if (*answer != (ask_allen ? allen : hitchcock)) {
          ++wrong_answers[static_cast<std::size_t>(thread_index)];
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const int wrong : wrong_answers) {
    EXPECT_EQ(wrong, 0);
  }
  expectCounters(service_, 2, 2 + kThreads * kCallsPerThread, 2);
}

TEST_F(MovieServiceCacheTest, ConcurrentFirstGetsQueryOnce) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  for (int thread_index = 0; thread_index < kThreads; ++thread_index) {
    threads.emplace_back([this] { static_cast<void>(service_.moviesByDirector("Zelig-less")); });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  expectCounters(service_, 1, kThreads - 1, 1);
}

TEST_F(MovieServiceCacheTest, AnswerOutlivesTheService) {
  std::shared_ptr<const std::string> answer;
  {
    MovieService short_lived{ServiceProfile{}, clock_};
    answer = short_lived.moviesByDirector("Kubrick");
  }
  EXPECT_EQ(titlesOf(*answer).size(), 2U);
}

TEST(MovieServiceCacheInstancesTest, InstancesInOneThreadDoNotShareEntries) {
  ServiceProfile read_write;
  read_write.read_only = false;
  auto first = std::make_unique<MovieService>(read_write);
  MovieService second(read_write);
  static_cast<void>(first->saveMovies(R"([{"title":"Dune","directors":[{"lastName":"Lynch"}]}])"));
  EXPECT_EQ(titlesOf(*first->moviesByDirector("Lynch")).size(), 1U);
  EXPECT_EQ(*second.moviesByDirector("Lynch"), "[]");
  EXPECT_EQ(titlesOf(*first->moviesByDirector("Lynch")).size(), 1U);
  expectCounters(*first, 1, 1, 1);
  expectCounters(second, 1, 0, 1);

  // A service created after another was destroyed starts empty, whatever its address.
  first.reset();
  MovieService third(read_write);
  EXPECT_EQ(*third.moviesByDirector("Lynch"), "[]");
  expectCounters(third, 1, 0, 1);
}

TEST(MovieServiceNoCacheTest, EveryGetQueries) {
  const std::string names[] = {"no-cache"};
  MovieService service(ServiceProfile::fromNames(names));
  const std::string first = *service.moviesByDirector("Allen");
  for (int call = 0; call < 4; ++call) {
    EXPECT_EQ(*service.moviesByDirector("Allen"), first);
  }
  static_cast<void>(service.moviesByDirector("Lynch"));
  expectCounters(service, 6, 0, 0);
}

TEST(MovieServiceNoCacheTest, ConcurrentGetsEachQuery) {
  const std::string names[] = {"no-cache"};
  MovieService service(ServiceProfile::fromNames(names));
  const std::string expected = *service.moviesByDirector("Kubrick");
  constexpr int kThreads = 4;
  constexpr int kCallsPerThread = 200;
  std::vector<std::thread> threads;
  std::vector<int> wrong_answers(kThreads, 0);
  for (int thread_index = 0; thread_index < kThreads; ++thread_index) {
    threads.emplace_back([&, thread_index] {
      for (int call = 0; call < kCallsPerThread; ++call) {
        if (*service.moviesByDirector("Kubrick") != expected) {
          ++wrong_answers[static_cast<std::size_t>(thread_index)];
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const int wrong : wrong_answers) {
    EXPECT_EQ(wrong, 0);
  }
  expectCounters(service, 1 + kThreads * kCallsPerThread, 0, 0);
}

/// The cache's part for answers loaded elsewhere (the postgres profile): lookup, remember,
/// forget; counted as the core's own hits and misses, never querying SQLite.
TEST_F(MovieServiceCacheTest, AnswersLoadedElsewhereAreCachedAndForgotten) {
  const MovieService::CacheLookup miss = service_.lookupMoviesByDirector("Allen");
  EXPECT_EQ(miss.json, nullptr);
  service_.rememberMoviesByDirector("Allen", "[from postgres]", miss.generation);
  const MovieService::CacheLookup hit = service_.lookupMoviesByDirector("Allen");
  ASSERT_NE(hit.json, nullptr);
  EXPECT_EQ(*hit.json, "[from postgres]");
  expectCounters(service_, 0, 1, 1);

  const std::vector<std::string> changed = {"Allen"};
  service_.forgetDirectors(changed);
  EXPECT_EQ(service_.lookupMoviesByDirector("Allen").json, nullptr);
}

TEST(MovieServiceNoCacheTest, LookupAlwaysMissesAndRememberKeepsNothing) {
  ServiceProfile profile;
  profile.cache_enabled = false;
  MovieService service(profile);
  service.rememberMoviesByDirector("Allen", "[x]",
                                   service.lookupMoviesByDirector("Allen").generation);
  EXPECT_EQ(service.lookupMoviesByDirector("Allen").json, nullptr);
  expectCounters(service, 0, 0, 0);
}

}  // namespace
}  // namespace benchd::microservice
