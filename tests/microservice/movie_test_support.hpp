#pragma once

#include <benchd/microservice/movie.hpp>

#include <vector>

namespace benchd::microservice::testing {

/// The movies with every id (of movies and of their nested objects) removed, for comparing
/// stored movies with the input they were made from.
[[nodiscard]] std::vector<Movie> withoutIds(std::vector<Movie> movies);

}  // namespace benchd::microservice::testing
