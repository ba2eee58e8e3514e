#include "expect_counters.hpp"
#include "json_test_support.hpp"
#include "manual_clock.hpp"
#include "movie_test_support.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_service.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace benchd::microservice {
namespace {

using testing::compactJson;
using testing::expectCounters;
using testing::movieIdsOf;
using testing::titlesOf;
using testing::withoutIds;

const std::string kLynchMovies = R"([
  {
    "title": "Mulholland Drive",
    "releaseYear": 2001,
    "genre": "MYSTERY",
    "characters": [
      {"name": "Betty Elms", "actor": {"firstName": "Naomi", "lastName": "Watts",
                                       "birthday": "1968-09-28"}}
    ],
    "directors": [{"firstName": "David", "lastName": "Lynch", "birthday": "1946-01-20"}],
    "writers": [{"firstName": "David", "lastName": "Lynch", "birthday": "1946-01-20"}],
    "awards": [{"name": "Cannes Best Director", "year": 2001}],
    "rating": 7.9
  },
  {
    "title": "The Straight Story",
    "releaseYear": 1999,
    "genre": "DRAMA",
    "characters": [],
    "directors": [{"firstName": "David", "lastName": "Lynch", "birthday": "1946-01-20"}],
    "writers": [{"firstName": "John", "lastName": "Roach", "birthday": null}],
    "awards": [],
    "rating": 8.0
  }
])";

ServiceProfile profileNamed(const std::vector<std::string>& names) {
  return ServiceProfile::fromNames(names);
}

TEST(MovieServiceReadOnlyTest, SaveEchoesTheInputCompactly) {
  MovieService service(ServiceProfile{});
  EXPECT_EQ(service.saveMovies(kLynchMovies), compactJson(kLynchMovies));
  const std::string file = testing::readMoviesJsonFile();
  EXPECT_EQ(service.saveMovies(file), compactJson(file));
}

TEST(MovieServiceReadOnlyTest, SaveStoresNothingAndEvictsNothing) {
  MovieService service(ServiceProfile{});
  const std::string allen_before = *service.moviesByDirector("Allen");
  static_cast<void>(service.saveMovies(kLynchMovies));
  static_cast<void>(
      service.saveMovies(R"([{"title":"Another Allen","directors":[{"lastName":"Allen"}]}])"));
  EXPECT_EQ(*service.moviesByDirector("Lynch"), "[]");
  EXPECT_EQ(*service.moviesByDirector("Allen"), allen_before);
  expectCounters(service, 2, 1, 2);
}

TEST(MovieServiceReadOnlyTest, DeleteDoesNothing) {
  MovieService service(ServiceProfile{});
  const std::string allen_before = *service.moviesByDirector("Allen");
  for (const std::int64_t id : movieIdsOf(allen_before)) {
    service.deleteMovie(id);
  }
  EXPECT_EQ(*service.moviesByDirector("Allen"), allen_before);
  expectCounters(service, 1, 1, 1);
}

TEST(MovieServiceReadOnlyTest, MalformedBodyIsRejected) {
  MovieService service(ServiceProfile{});
  EXPECT_THROW(static_cast<void>(service.saveMovies(R"({"title":"X"})")), InvalidMoviesError);
}

class MovieServiceReadWriteTest : public ::testing::Test {
 protected:
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  MovieService service_{profileNamed({"read-write"}), clock_};
};

TEST_F(MovieServiceReadWriteTest, SaveReturnsTheMoviesWithNewIds) {
  const std::string saved = service_.saveMovies(kLynchMovies);
  const std::vector<Movie> movies = parseMovies(saved);
  ASSERT_EQ(movies.size(), 2U);
  EXPECT_EQ(withoutIds(movies), parseMovies(kLynchMovies));

  const std::vector<std::int64_t> ids = testing::allIdsIn(saved);
  // Two movies; one character with its actor; two directors; two writers; one award.
  EXPECT_EQ(ids.size(), 9U);
  // The seed used ids 1..67; new ids continue the one sequence.
  EXPECT_EQ(*std::min_element(ids.begin(), ids.end()), 68);
  EXPECT_EQ(*std::max_element(ids.begin(), ids.end()), 76);
}

TEST_F(MovieServiceReadWriteTest, SaveEvictsAndTheNextGetQueriesAndShowsTheNewMovies) {
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
  expectCounters(service_, 1, 1, 1);

  const std::vector<std::int64_t> saved_ids = movieIdsOf(service_.saveMovies(kLynchMovies));

  const std::string answer = *service_.moviesByDirector("Lynch");
  expectCounters(service_, 2, 1, 2);
  EXPECT_EQ(titlesOf(answer), (std::vector<std::string>{"Mulholland Drive", "The Straight Story"}));
  EXPECT_EQ(movieIdsOf(answer), saved_ids);
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), answer);
  expectCounters(service_, 2, 2, 2);
}

TEST_F(MovieServiceReadWriteTest, SaveEvictsOnlyTheAffectedDirectors) {
  static_cast<void>(service_.moviesByDirector("Allen"));
  static_cast<void>(service_.moviesByDirector("Kubrick"));
  static_cast<void>(service_.saveMovies(
      R"([{"title":"Bananas","releaseYear":1971,"directors":[{"lastName":"Allen"}]}])"));
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Allen")),
            (std::vector<std::string>{"Annie Hall", "Bananas", "Manhattan", "Zelig"}));
  static_cast<void>(service_.moviesByDirector("Kubrick"));
  expectCounters(service_, 3, 1, 3);
}

TEST_F(MovieServiceReadWriteTest, SaveEvictsForEveryThread) {
  static_cast<void>(service_.moviesByDirector("Lynch"));
  std::thread([this] { static_cast<void>(service_.moviesByDirector("Lynch")); }).join();
  static_cast<void>(service_.saveMovies(kLynchMovies));
  std::vector<std::string> titles_seen;
  std::thread([&] { titles_seen = titlesOf(*service_.moviesByDirector("Lynch")); }).join();
  EXPECT_EQ(titles_seen.size(), 2U);
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Lynch")).size(), 2U);
  expectCounters(service_, 2, 2, 2);
}

TEST_F(MovieServiceReadWriteTest, DeleteRemovesTheMovieAndEvicts) {
  const std::vector<std::int64_t> saved_ids = movieIdsOf(service_.saveMovies(kLynchMovies));
  ASSERT_EQ(saved_ids.size(), 2U);
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Lynch")).size(), 2U);
  expectCounters(service_, 1, 0, 1);

  service_.deleteMovie(saved_ids[0]);
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Lynch")),
            std::vector<std::string>{"The Straight Story"});
  expectCounters(service_, 2, 0, 2);

  service_.deleteMovie(saved_ids[1]);
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
  expectCounters(service_, 3, 0, 3);
}

TEST_F(MovieServiceReadWriteTest, DeleteOfASeededMovie) {
  const std::vector<std::int64_t> ids = movieIdsOf(*service_.moviesByDirector("Kubrick"));
  ASSERT_EQ(ids.size(), 2U);
  service_.deleteMovie(ids[0]);
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Kubrick")),
            std::vector<std::string>{
                "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb"});
}

TEST_F(MovieServiceReadWriteTest, DeleteOfAnUnknownIdChangesNothing) {
  const std::string allen = *service_.moviesByDirector("Allen");
  service_.deleteMovie(999999);
  service_.deleteMovie(-1);
  EXPECT_EQ(*service_.moviesByDirector("Allen"), allen);
  expectCounters(service_, 1, 1, 1);
}

TEST_F(MovieServiceReadWriteTest, MalformedBodyStoresNothing) {
  const std::string body =
      R"([{"title":"Dune","directors":[{"lastName":"Lynch"}]},{"title":"Bad","rating":"x"}])";
  try {
    static_cast<void>(service_.saveMovies(body));
    FAIL() << "expected InvalidMoviesError";
  } catch (const InvalidMoviesError& error) {
    EXPECT_STREQ(error.what(), "$[1].rating: expected a number");
  }
  EXPECT_EQ(*service_.moviesByDirector("Lynch"), "[]");
}

TEST_F(MovieServiceReadWriteTest, InputIdsAreReplaced) {
  const std::string saved =
      service_.saveMovies(R"([{"id":1,"title":"Dune","directors":[{"id":2,"lastName":"Lynch"}]}])");
  EXPECT_EQ(testing::allIdsIn(saved), (std::vector<std::int64_t>{68, 69}));
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Allen")).size(), 3U);
}

TEST_F(MovieServiceReadWriteTest, ReadersSeeEachSaveOnceItReturns) {
  constexpr int kSaves = 20;
  std::atomic<int> completed_saves{0};
  std::atomic<bool> stale_answer_seen{false};
  std::vector<std::thread> readers;
  for (int reader = 0; reader < 3; ++reader) {
    readers.emplace_back([&] {
      while (completed_saves.load() < kSaves) {
        const int saves_before = completed_saves.load();
        const std::size_t titles = titlesOf(*service_.moviesByDirector("Lynch")).size();
        if (titles < static_cast<std::size_t>(saves_before)) {
          stale_answer_seen = true;
        }
      }
    });
  }
  for (int save = 0; save < kSaves; ++save) {
    static_cast<void>(service_.saveMovies(R"([{"title":"Film )" + std::to_string(save) +
                                          R"(","directors":[{"lastName":"Lynch"}]}])"));
    completed_saves.fetch_add(1);
  }
  for (std::thread& reader : readers) {
    reader.join();
  }
  EXPECT_FALSE(stale_answer_seen.load());
  EXPECT_EQ(titlesOf(*service_.moviesByDirector("Lynch")).size(), static_cast<std::size_t>(kSaves));
}

TEST(MovieServiceNoCacheReadWriteTest, SaveAndDeleteWithoutACache) {
  MovieService service(profileNamed({"no-cache", "read-write"}));
  const std::vector<std::int64_t> ids = movieIdsOf(service.saveMovies(kLynchMovies));
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Lynch")).size(), 2U);
  service.deleteMovie(ids[1]);
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Lynch")).size(), 1U);
  expectCounters(service, 2, 0, 0);
}

TEST(ServiceProfileTest, DefaultsToCachedAndReadOnly) {
  const ServiceProfile profile = profileNamed({});
  EXPECT_TRUE(profile.cache_enabled);
  EXPECT_TRUE(profile.read_only);
}

TEST(ServiceProfileTest, NamesSwitchTheirFlagsAndUnknownNamesAreIgnored) {
  const ServiceProfile no_cache = profileNamed({"no-cache", "no-keep-alive"});
  EXPECT_FALSE(no_cache.cache_enabled);
  EXPECT_TRUE(no_cache.read_only);
  const ServiceProfile read_write = profileNamed({"read-write", "platform-tomcat"});
  EXPECT_TRUE(read_write.cache_enabled);
  EXPECT_FALSE(read_write.read_only);
  const ServiceProfile both = profileNamed({"read-write", "no-cache"});
  EXPECT_FALSE(both.cache_enabled);
  EXPECT_FALSE(both.read_only);
  EXPECT_TRUE(profileNamed({"No-Cache", "readwrite"}).cache_enabled);
}

TEST(ServiceProfileTest, ServiceReportsItsProfile) {
  const MovieService service(profileNamed({"no-cache"}));
  EXPECT_FALSE(service.profile().cache_enabled);
  EXPECT_TRUE(service.profile().read_only);
}

}  // namespace
}  // namespace benchd::microservice
