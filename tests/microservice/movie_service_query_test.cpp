#include "json_test_support.hpp"
#include "movie_test_support.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_service.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

namespace benchd::microservice {
namespace {

using testing::allIdsIn;
using testing::titlesOf;
using testing::withoutIds;

const std::vector<std::string> kAllenTitles = {"Annie Hall", "Manhattan", "Zelig"};
const std::vector<std::string> kHitchcockTitles = {"North by Northwest", "Rear Window", "Vertigo"};
const std::vector<std::string> kKubrickTitles = {
    "2001: A Space Odyssey",
    "Dr. Strangelove or: How I Learned to Stop Worrying and Love the Bomb"};

ServiceProfile readWrite() {
  ServiceProfile profile;
  profile.read_only = false;
  return profile;
}

class MovieServiceQueryTest : public ::testing::TestWithParam<ServiceProfile> {};

std::string profileName(const ::testing::TestParamInfo<ServiceProfile>& param_info) {
  return param_info.param.cache_enabled ? "Cache" : "NoCache";
}

INSTANTIATE_TEST_SUITE_P(CachedAndUncached, MovieServiceQueryTest,
                         ::testing::Values(ServiceProfile{true, true}, ServiceProfile{false, true}),
                         profileName);

TEST_P(MovieServiceQueryTest, FindsEachDirectorsMoviesOrderedByTitle) {
  MovieService service(GetParam());
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Allen")), kAllenTitles);
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Hitchcock")), kHitchcockTitles);
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Kubrick")), kKubrickTitles);
}

TEST_P(MovieServiceQueryTest, UnknownDirectorGetsAnEmptyArray) {
  MovieService service(GetParam());
  EXPECT_EQ(*service.moviesByDirector("Lynch"), "[]");
  EXPECT_EQ(*service.moviesByDirector(""), "[]");
  EXPECT_EQ(*service.moviesByDirector("allen"), "[]") << "last names match case-sensitively";
  EXPECT_EQ(*service.moviesByDirector("Allen' OR '1'='1"), "[]");
}

TEST_P(MovieServiceQueryTest, MatchesOnDirectorsNotOnActorsOrWriters) {
  MovieService service(GetParam());
  EXPECT_EQ(*service.moviesByDirector("Keaton"), "[]");
  EXPECT_EQ(*service.moviesByDirector("Lehman"), "[]");
}

TEST_P(MovieServiceQueryTest, AnswersAreAboutOneAndAHalfKilobytes) {
  MovieService service(GetParam());
  for (const char* director : {"Allen", "Hitchcock", "Kubrick"}) {
    const std::size_t size = service.moviesByDirector(director)->size();
    EXPECT_GE(size, 1200U) << director;
    EXPECT_LE(size, 1700U) << director;
  }
}

TEST_P(MovieServiceQueryTest, SeededMoviesAreTheFileContentWithIds) {
  MovieService service(GetParam());
  std::vector<Movie> stored;
  for (const char* director : {"Allen", "Hitchcock", "Kubrick"}) {
    const std::vector<Movie> movies = parseMovies(*service.moviesByDirector(director));
    stored.insert(stored.end(), movies.begin(), movies.end());
  }
  std::vector<Movie> seed = parseMovies(testing::readMoviesJsonFile());
  stored = withoutIds(std::move(stored));
  const auto by_title = [](const Movie& left, const Movie& right) {
    return left.title < right.title;
  };
  std::sort(stored.begin(), stored.end(), by_title);
  std::sort(seed.begin(), seed.end(), by_title);
  EXPECT_EQ(stored, seed);
}

TEST_P(MovieServiceQueryTest, EveryStoredObjectHasADistinctId) {
  MovieService service(GetParam());
  std::vector<std::int64_t> ids;
  for (const char* director : {"Allen", "Hitchcock", "Kubrick"}) {
    const std::vector<std::int64_t> director_ids = allIdsIn(*service.moviesByDirector(director));
    ids.insert(ids.end(), director_ids.begin(), director_ids.end());
  }
  // 8 movies, 16 characters and their 16 actors, 8 directors, 8 writers, 11 awards.
  EXPECT_EQ(ids.size(), 67U);
  EXPECT_EQ(std::set<std::int64_t>(ids.begin(), ids.end()).size(), ids.size());
  EXPECT_GE(*std::min_element(ids.begin(), ids.end()), 1);
}

TEST(MovieServiceOrderingTest, OrdersByTitleThenYearThenGenreThenId) {
  MovieService service(readWrite());
  const std::string body = R"([
    {"title":"Twin Peaks","releaseYear":1992,"genre":"MYSTERY","directors":[{"lastName":"Lynch"}]},
    {"title":"Eraserhead","releaseYear":1977,"genre":"HORROR","directors":[{"lastName":"Lynch"}]},
    {"title":"Twin Peaks","releaseYear":1990,"genre":"THRILLER","directors":[{"lastName":"Lynch"}]},
    {"title":"Twin Peaks","releaseYear":1990,"genre":"DRAMA","directors":[{"lastName":"Lynch"}]},
    {"title":"Dune","releaseYear":1984,"genre":"SCIENCE_FICTION","rating":6.3,
     "directors":[{"lastName":"Lynch"}]},
    {"title":"Dune","releaseYear":1984,"genre":"SCIENCE_FICTION","rating":6.4,
     "directors":[{"lastName":"Lynch"}]}
  ])";
  const std::vector<std::int64_t> saved_ids = testing::movieIdsOf(service.saveMovies(body));
  ASSERT_EQ(saved_ids.size(), 6U);

  const std::string answer = *service.moviesByDirector("Lynch");
  EXPECT_EQ(titlesOf(answer), (std::vector<std::string>{"Dune", "Dune", "Eraserhead", "Twin Peaks",
                                                        "Twin Peaks", "Twin Peaks"}));
  const std::vector<Movie> movies = parseMovies(answer);
  EXPECT_EQ(movies[0].id, saved_ids[4]);
  EXPECT_EQ(movies[1].id, saved_ids[5]);
  EXPECT_EQ(movies[3].genre, Genre::kDrama);
  EXPECT_EQ(movies[4].genre, Genre::kThriller);
  EXPECT_EQ(movies[5].release_year, 1992);
}

TEST(MovieServiceOrderingTest, AMovieWithTwoDirectorsOfTheSameNameIsListedOnce) {
  MovieService service(readWrite());
  static_cast<void>(
      service.saveMovies(R"([{"title":"Fargo","directors":[{"firstName":"Joel","lastName":"Coen"},)"
                         R"({"firstName":"Ethan","lastName":"Coen"}]}])"));
  EXPECT_EQ(titlesOf(*service.moviesByDirector("Coen")), std::vector<std::string>{"Fargo"});
}

TEST(MovieServiceInstancesTest, InstancesHaveSeparateDatabases) {
  MovieService writer(readWrite());
  MovieService other(readWrite());
  static_cast<void>(writer.saveMovies(R"([{"title":"Dune","directors":[{"lastName":"Lynch"}]}])"));
  EXPECT_EQ(titlesOf(*writer.moviesByDirector("Lynch")), std::vector<std::string>{"Dune"});
  EXPECT_EQ(*other.moviesByDirector("Lynch"), "[]");
}

}  // namespace
}  // namespace benchd::microservice
