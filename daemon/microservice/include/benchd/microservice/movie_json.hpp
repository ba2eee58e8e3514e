#pragma once

#include <benchd/microservice/invalid_movies_error.hpp>
#include <benchd/microservice/movie.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::microservice {

/// Parses a POST /movies body: a JSON array of movie objects. Unknown keys are ignored and
/// JSON null counts as absent. "title" is required; "genre" must name a Genre; "birthday"
/// must be "YYYY-MM-DD"; ids, years and ratings must be numbers of the right kind. The body
/// must be valid UTF-8, and so must every \u escape: a lone UTF-16 surrogate is rejected.
/// Throws InvalidMoviesError whose what() names the JSON path and the reason, e.g.
/// "$[2].releaseYear: expected an integer", "$: expected a JSON array" or
/// "invalid JSON at offset 17: <reason>".
[[nodiscard]] std::vector<Movie> parseMovies(std::string_view json);

/// Compact JSON of one movie, fields in the order id, title, releaseYear, genre, characters,
/// directors, writers, awards, rating (Character: id, name, actor; Person: id, firstName,
/// lastName, birthday; Award: id, name, year). "id" is omitted when absent; every other
/// absent field is written as null.
[[nodiscard]] std::string serializeMovie(const Movie& movie);

/// Compact JSON array of the movies, each as serializeMovie writes it.
[[nodiscard]] std::string serializeMovies(std::span<const Movie> movies);

}  // namespace benchd::microservice
