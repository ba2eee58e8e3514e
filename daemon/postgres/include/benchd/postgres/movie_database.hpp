#pragma once
// The movie database of the `postgres` server profile: the tables of the core's SQLite
// database (daemon/microservice/src/movie_database_connection.cpp) in PostgreSQL, holding the
// same 8 seed movies with the same ids and the same JSON documents, so that a row run against
// PostgreSQL answers every request exactly as the core does.
//
// Schema (in the connection's default schema, normally `public`):
//   movie(id bigint PRIMARY KEY, title text NOT NULL, release_year integer, genre text,
//         rating double precision, document text NOT NULL)
//     document: the movie's compact JSON with every id in it, as the core serialises it.
//   movie_director(movie_id bigint NOT NULL REFERENCES movie, last_name text NOT NULL)
//     indexed by (last_name, movie_id) and by movie_id.
//   sequence movie_object_id: ids of stored objects (movies, characters, persons, awards), one
//     sequence as in the core's repository; its next value is the id the core would give the
//     first object stored after seeding.
//
// The seed is the core's own: scenarios/movies.json as compiled into benchd::microservice,
// with the ids the core's repository gives it (read back from a MovieService, so the
// numbering rule exists once). Text sorts like the core's only in a database whose collation
// is C (PrivateCluster's are).
//
// Each function opens its own connection from a libpq conninfo, or uses the one it is given
// (then it must not be in a transaction). Errors throw PgError with libpq's message. Not for
// concurrent use with load on the same tables: reset() takes an exclusive lock.

#include <benchd/postgres/pg_connection.hpp>

#include <string>

namespace benchd::postgres {

/// Creates the schema and fills it with the seed, in one transaction (nothing is left behind
/// when it fails). Throws PgError with SQLSTATE 42P07 when the tables already exist.
void createMovieDatabase(const std::string& conninfo);
void createMovieDatabase(PgConnection& connection);

/// Restores the seed state in one transaction: empties both tables (TRUNCATE, so the next run
/// starts without the dead rows or bloat of the last one), inserts the seed again, resets the
/// id sequence and refreshes the planner statistics. For the start of every (row, approach)
/// run. The schema must exist (createMovieDatabase).
void resetMovieDatabase(const std::string& conninfo);
void resetMovieDatabase(PgConnection& connection);

}  // namespace benchd::postgres
