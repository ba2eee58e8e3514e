#pragma once

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>
#include <benchd/sqlite/sqlite_transaction.hpp>

#include <string>

namespace benchd::microservice {

using sqlite::SqliteConnection;
using sqlite::SqliteStatement;
using sqlite::SqliteTransaction;
using sqlite::StatementExecution;

/// One connection to the movie database together with its prepared statements.
///
/// Schema: movie(id, title, release_year, genre, rating, document) holds each movie's compact
/// JSON (ids included) next to the columns it is ordered by; movie_director(movie_id,
/// last_name), indexed by last name, says which movies a director made.
///
/// Thread-safety: none, like SqliteConnection; the repository leases it to one thread at a
/// time.
class MovieDatabaseConnection {
 public:
  enum class Schema { kCreate, kExisting };

  /// Opens the database at `uri`; with Schema::kCreate first creates the tables (once per
  /// database, before any other connection opens it).
  MovieDatabaseConnection(const std::string& uri, Schema schema);

  [[nodiscard]] SqliteConnection& connection() { return connection_; }

  /// ?1 = director last name; rows: document, ordered by title, release year, genre, id.
  [[nodiscard]] SqliteStatement& findDocumentsByDirector() { return find_documents_by_director_; }
  /// ?1..?6 = id, title, release_year, genre, rating, document.
  [[nodiscard]] SqliteStatement& insertMovie() { return insert_movie_; }
  /// ?1 = movie id, ?2 = director last name.
  [[nodiscard]] SqliteStatement& insertDirector() { return insert_director_; }
  /// ?1 = movie id; rows: the last names of the deleted directors.
  [[nodiscard]] SqliteStatement& deleteDirectors() { return delete_directors_; }
  /// ?1 = movie id.
  [[nodiscard]] SqliteStatement& deleteMovie() { return delete_movie_; }

 private:
  SqliteConnection connection_;
  SqliteStatement find_documents_by_director_;
  SqliteStatement insert_movie_;
  SqliteStatement insert_director_;
  SqliteStatement delete_directors_;
  SqliteStatement delete_movie_;
};

}  // namespace benchd::microservice
