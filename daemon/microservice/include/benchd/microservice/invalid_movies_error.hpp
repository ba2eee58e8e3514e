#pragma once

#include <stdexcept>

namespace benchd::microservice {

/// Thrown for a POST body that is not a JSON array of movies. what() names the offending JSON
/// path and the reason, e.g. "$[2].releaseYear: expected an integer".
class InvalidMoviesError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace benchd::microservice
