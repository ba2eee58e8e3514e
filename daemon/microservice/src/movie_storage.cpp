#include "seed_movies.hpp"

#include <benchd/microservice/genre.hpp>
#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_storage.hpp>

#include <stdexcept>

namespace benchd::microservice {

void assignObjectIds(Movie& movie, const NextObjectId& next_id) {
  movie.id = next_id();
  for (Character& character : movie.characters) {
    character.id = next_id();
    if (character.actor) {
      character.actor->id = next_id();
    }
  }
  for (Person& director : movie.directors) {
    director.id = next_id();
  }
  for (Person& writer : movie.writers) {
    writer.id = next_id();
  }
  for (Award& award : movie.awards) {
    award.id = next_id();
  }
}

std::size_t objectIdCount(const Movie& movie) noexcept {
  std::size_t count = 1 + movie.characters.size() + movie.directors.size() + movie.writers.size() +
                      movie.awards.size();
  for (const Character& character : movie.characters) {
    count += character.actor ? std::size_t{1} : std::size_t{0};
  }
  return count;
}

MovieRow movieRowOf(const Movie& movie) {
  if (!movie.id) {
    throw std::invalid_argument("movieRowOf: the movie '" + movie.title + "' has no id yet");
  }
  MovieRow row;
  row.id = *movie.id;
  row.title = movie.title;
  if (movie.release_year) {
    row.release_year = *movie.release_year;
  }
  if (movie.genre) {
    row.genre = genreName(*movie.genre);
  }
  row.rating = movie.rating;
  row.document = serializeMovie(movie);
  for (const Person& director : movie.directors) {
    if (director.last_name) {
      row.director_last_names.push_back(*director.last_name);
    }
  }
  return row;
}

const SeedMovies& seedMovies() {
  static const SeedMovies seed = [] {
    SeedMovies movies;
    movies.movies = parseMovies(seedMoviesJson());
    for (Movie& movie : movies.movies) {
      assignObjectIds(movie, [&movies] { return movies.next_object_id++; });
    }
    return movies;
  }();
  return seed;
}

}  // namespace benchd::microservice
