#include "movie_test_support.hpp"

namespace benchd::microservice::testing {

std::vector<Movie> withoutIds(std::vector<Movie> movies) {
  for (Movie& movie : movies) {
    movie.id.reset();
    for (Character& character : movie.characters) {
      character.id.reset();
      if (character.actor) {
        character.actor->id.reset();
      }
    }
    for (Person& person : movie.directors) {
      person.id.reset();
    }
    for (Person& person : movie.writers) {
      person.id.reset();
    }
    for (Award& award : movie.awards) {
      award.id.reset();
    }
  }
  return movies;
}

}  // namespace benchd::microservice::testing
