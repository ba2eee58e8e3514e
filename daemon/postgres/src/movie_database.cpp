#include "sql_text.hpp"

#include <benchd/microservice/movie_storage.hpp>
#include <benchd/postgres/movie_database.hpp>
#include <benchd/postgres/pg_transaction.hpp>

#include <array>
#include <optional>
#include <string>

namespace benchd::postgres {
namespace {

using microservice::Movie;

/// The core's schema (daemon/microservice/src/movie_database_connection.cpp) in PostgreSQL
/// types, plus the sequence that stands in for the core repository's id counter.
constexpr const char* kCreateSchema = R"sql(
CREATE TABLE movie (
  id bigint PRIMARY KEY,
  title text NOT NULL,
  release_year integer,
  genre text,
  rating double precision,
  document text NOT NULL
);
CREATE TABLE movie_director (
  movie_id bigint NOT NULL REFERENCES movie (id),
  last_name text NOT NULL
);
CREATE INDEX movie_director_by_last_name ON movie_director (last_name, movie_id);
CREATE INDEX movie_director_by_movie ON movie_director (movie_id);
CREATE SEQUENCE movie_object_id AS bigint;
)sql";

constexpr const char* kInsertMovie =
    "INSERT INTO movie (id, title, release_year, genre, rating, document) "
    "VALUES ($1, $2, $3, $4, $5, $6)";
constexpr const char* kInsertDirector =
    "INSERT INTO movie_director (movie_id, last_name) VALUES ($1, $2)";
constexpr const char* kSetNextId = "SELECT setval('movie_object_id', $1, $2)";
/// Equal statistics after every reset, so every run starts with the same plans.
constexpr const char* kAnalyze = "ANALYZE movie, movie_director";

std::optional<std::string> textOf(const std::optional<std::int64_t>& value) {
  return value ? std::optional(std::to_string(*value)) : std::nullopt;
}

void insertSeed(PgConnection& connection) {
  const microservice::SeedMovies& seed = microservice::seedMovies();
  for (const Movie& movie : seed.movies) {
    const microservice::MovieRow row = microservice::movieRowOf(movie);
    const std::array<std::optional<std::string>, 6> movie_row = {
        std::to_string(row.id),
        row.title,
        textOf(row.release_year),
        row.genre ? std::optional(std::string(*row.genre)) : std::nullopt,
        row.rating ? std::optional(exactText(*row.rating)) : std::nullopt,
        row.document};
    connection.execute(kInsertMovie, movie_row);
    for (const std::string& last_name : row.director_last_names) {
      const std::array<std::optional<std::string>, 2> director_row = {std::to_string(row.id),
                                                                      last_name};
      connection.execute(kInsertDirector, director_row);
    }
  }
  // is_called false: the next nextval() returns next_object_id itself.
  const std::array<std::optional<std::string>, 2> next_id = {std::to_string(seed.next_object_id),
                                                             std::string("false")};
  connection.execute(kSetNextId, next_id);
}

}  // namespace

void createMovieDatabase(PgConnection& connection) {
  PgTransaction transaction(connection);
  connection.execute(kCreateSchema);
  insertSeed(connection);
  connection.execute(kAnalyze);
  transaction.commit();
}

void createMovieDatabase(const std::string& conninfo) {
  PgConnection connection(conninfo);
  createMovieDatabase(connection);
}

void resetMovieDatabase(PgConnection& connection) {
  PgTransaction transaction(connection);
  // Both tables in one TRUNCATE: movie_director references movie.
  connection.execute("TRUNCATE movie_director, movie");
  insertSeed(connection);
  connection.execute(kAnalyze);
  transaction.commit();
}

void resetMovieDatabase(const std::string& conninfo) {
  PgConnection connection(conninfo);
  resetMovieDatabase(connection);
}

}  // namespace benchd::postgres
