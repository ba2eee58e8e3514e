// The storage rule both databases share (movie_storage.hpp): how objects are numbered, which
// columns a movie has, and the seed as a new database holds it.
#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_service.hpp>
#include <benchd/microservice/movie_storage.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::microservice {
namespace {

Movie movieWithEveryKindOfObject() {
  return parseMovies(R"([{"id": 99, "title": "T", "releaseYear": 2001, "genre": "DRAMA",
      "characters": [{"id": 7, "name": "A", "actor": {"lastName": "X"}}, {"name": "B"}],
      "directors": [{"lastName": "Lynch"}, {"firstName": "NoLastName"}],
      "writers": [{"lastName": "W"}], "awards": [{"name": "Prize", "year": 2002}],
      "rating": 7.9}])")
      .front();
}

TEST(MovieStorageTest, AssignsIdsInDocumentOrderAndCountsThem) {
  Movie movie = movieWithEveryKindOfObject();
  std::int64_t next = 40;
  assignObjectIds(movie, [&next] { return next++; });
  EXPECT_EQ(movie.id, 40);
  EXPECT_EQ(movie.characters[0].id, 41);
  EXPECT_EQ(movie.characters[0].actor->id, 42);
  EXPECT_EQ(movie.characters[1].id, 43);
  EXPECT_EQ(movie.directors[0].id, 44);
  EXPECT_EQ(movie.directors[1].id, 45);
  EXPECT_EQ(movie.writers[0].id, 46);
  EXPECT_EQ(movie.awards[0].id, 47);
  EXPECT_EQ(objectIdCount(movie), 8U);
  EXPECT_EQ(next, 48);
}

TEST(MovieStorageTest, RowHoldsTheColumnsTheDocumentAndOnlyDirectorsWithALastName) {
  Movie movie = movieWithEveryKindOfObject();
  std::int64_t next = 1;
  assignObjectIds(movie, [&next] { return next++; });
  const MovieRow row = movieRowOf(movie);
  EXPECT_EQ(row.id, 1);
  EXPECT_EQ(row.title, "T");
  EXPECT_EQ(row.release_year, 2001);
  EXPECT_EQ(row.genre, "DRAMA");
  EXPECT_EQ(row.rating, 7.9);
  EXPECT_EQ(row.document, serializeMovie(movie));
  EXPECT_EQ(row.director_last_names, std::vector<std::string>{"Lynch"});
}

TEST(MovieStorageTest, RowOfAMovieWithoutIdIsRefused) {
  Movie movie = movieWithEveryKindOfObject();
  ASSERT_EQ(movie.id, 99);  // parsed as given, not stored
  movie.id.reset();
  EXPECT_THROW((void)movieRowOf(movie), std::invalid_argument);
}

TEST(MovieStorageTest, SeedHoldsTheIdsTheCoreServesAndTheNextId) {
  const SeedMovies& seed = seedMovies();
  ASSERT_EQ(seed.movies.size(), 8U);
  ServiceProfile profile;
  profile.cache_enabled = false;
  MovieService core(profile);
  std::int64_t ids = 0;
  for (const Movie& movie : seed.movies) {
    ids += static_cast<std::int64_t>(objectIdCount(movie));
    const std::string served = *core.moviesByDirector(*movie.directors.at(0).last_name);
    EXPECT_NE(served.find(serializeMovie(movie)), std::string::npos) << movie.title;
  }
  EXPECT_EQ(seed.next_object_id, ids + 1);
  // The core's next stored object gets that id.
  profile.read_only = false;
  MovieService writable(profile);
  const std::vector<Movie> stored = parseMovies(writable.saveMovies(R"([{"title": "Next"}])"));
  EXPECT_EQ(stored.at(0).id, seed.next_object_id);
}

}  // namespace
}  // namespace benchd::microservice
