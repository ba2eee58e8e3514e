#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::microservice::testing {

/// The text of scenarios/movies.json in the source tree.
[[nodiscard]] std::string readMoviesJsonFile();

/// The same JSON value re-written compactly, independently of the code under test.
[[nodiscard]] std::string compactJson(std::string_view json);

/// The "title" of every element of a JSON array of movies, in order.
[[nodiscard]] std::vector<std::string> titlesOf(std::string_view movies_json);

/// The "id" of every element of a JSON array of movies, in order (-1 for a missing id).
[[nodiscard]] std::vector<std::int64_t> movieIdsOf(std::string_view movies_json);

/// Every "id" anywhere in the JSON text (movies and nested objects).
[[nodiscard]] std::vector<std::int64_t> allIdsIn(std::string_view json);

}  // namespace benchd::microservice::testing
