#include "movie_database_connection.hpp"

namespace benchd::microservice {
namespace {

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE movie (
  id INTEGER PRIMARY KEY,
  title TEXT NOT NULL,
  release_year INTEGER,
  genre TEXT,
  rating REAL,
  document TEXT NOT NULL
);
CREATE TABLE movie_director (
  movie_id INTEGER NOT NULL REFERENCES movie (id),
  last_name TEXT NOT NULL
);
CREATE INDEX movie_director_by_last_name ON movie_director (last_name, movie_id);
CREATE INDEX movie_director_by_movie ON movie_director (movie_id);
)sql";

/// Creates the schema if asked to and returns the connection, so that the statements of the
/// constructor's initialiser list are prepared against existing tables.
SqliteConnection& withSchema(SqliteConnection& connection, MovieDatabaseConnection::Schema schema) {
  if (schema == MovieDatabaseConnection::Schema::kCreate) {
    connection.execute(kCreateSchema);
  }
  return connection;
}

}  // namespace

MovieDatabaseConnection::MovieDatabaseConnection(const std::string& uri, Schema schema)
    : connection_(uri),
      find_documents_by_director_(withSchema(connection_, schema).prepare(R"sql(
        SELECT movie.document FROM movie
        WHERE movie.id IN (
          SELECT movie_director.movie_id FROM movie_director
          WHERE movie_director.last_name = ?1)
        ORDER BY movie.title, movie.release_year, movie.genre, movie.id)sql")),
      insert_movie_(connection_.prepare(
          "INSERT INTO movie (id, title, release_year, genre, rating, document) "
          "VALUES (?1, ?2, ?3, ?4, ?5, ?6)")),
      insert_director_(
          connection_.prepare("INSERT INTO movie_director (movie_id, last_name) VALUES (?1, ?2)")),
      delete_directors_(connection_.prepare(
          "DELETE FROM movie_director WHERE movie_id = ?1 RETURNING last_name")),
      delete_movie_(connection_.prepare("DELETE FROM movie WHERE id = ?1")) {}

}  // namespace benchd::microservice
