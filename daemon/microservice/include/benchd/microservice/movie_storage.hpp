#pragma once
// How the core stores a movie, in one place for both of its databases: the in-memory SQLite
// repository of every profile and the PostgreSQL database of the `postgres` profile
// (benchd::postgres). Both number objects the same way and store the same columns, so the two
// answer every request with the same bytes.

#include <benchd/microservice/movie.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::microservice {

/// Hands out the next id of the one sequence that numbers every stored object.
using NextObjectId = std::function<std::int64_t()>;

/// Gives the movie and every object in it a new id from `next_id`, in this order: the movie,
/// each character followed by its actor, the directors, the writers, the awards. Ids in the
/// input are replaced. The sequence starts at 1 in a new database.
void assignObjectIds(Movie& movie, const NextObjectId& next_id);

/// How many ids assignObjectIds() takes for this movie.
[[nodiscard]] std::size_t objectIdCount(const Movie& movie) noexcept;

/// The columns of a stored movie: `movie(id, title, release_year, genre, rating, document)`,
/// where the document is the movie's compact JSON with its ids, and one
/// `movie_director(movie_id, last_name)` row per director with a last name (only last names
/// are looked up).
struct MovieRow {
  std::int64_t id = 0;
  std::string title;
  std::optional<std::int64_t> release_year;
  std::optional<std::string_view> genre;  ///< static storage (genreName)
  std::optional<double> rating;
  std::string document;
  std::vector<std::string> director_last_names;
};

/// The row of a movie that has its ids (assignObjectIds). Throws std::invalid_argument for a
/// movie without an id.
[[nodiscard]] MovieRow movieRowOf(const Movie& movie);

/// The seed movies (scenarios/movies.json) as a new database holds them: with the ids the
/// sequence gave them, in seed order. The next id after them is `next_object_id`.
struct SeedMovies {
  std::vector<Movie> movies;
  std::int64_t next_object_id = 1;
};
[[nodiscard]] const SeedMovies& seedMovies();

}  // namespace benchd::microservice
