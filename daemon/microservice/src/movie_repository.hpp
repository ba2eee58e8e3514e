#pragma once

#include "movie_database_connection.hpp"
#include "object_pool.hpp"

#include <benchd/microservice/movie.hpp>

#include <atomic>
#include <cstdint>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::microservice {

/// The movies, stored in an in-memory SQLite database private to this repository (a named
/// "memdb" database shared by a small pool of connections).
///
/// Ids and columns: as movie_storage.hpp says (assignObjectIds, movieRowOf), with the sequence
/// counted in memory.
///
/// Thread-safety: every member function may be called concurrently. Reads run in parallel on
/// different pooled connections; writes exclude reads and each other.
class MovieRepository {
 public:
  MovieRepository();

  /// Stores the movies in one transaction and returns them with their new ids.
  std::vector<Movie> insert(std::vector<Movie> movies);

  /// Compact JSON array of the movies directed by someone with this last name, ordered by
  /// title, release year, genre and id; "[]" for none. Counts as one query.
  [[nodiscard]] std::string findJsonByDirectorLastName(std::string_view last_name);

  /// Deletes the movie and returns its directors' last names (none for an unknown id).
  std::vector<std::string> deleteById(std::int64_t movie_id);

  /// Number of findJsonByDirectorLastName() calls so far.
  [[nodiscard]] std::int64_t queryCount() const noexcept;

 private:
  std::int64_t nextId() { return next_id_++; }

  ObjectPool<MovieDatabaseConnection> connections_;
  /// Shared by readers, exclusive for writers, so SQLite never reports a lock conflict.
  std::shared_mutex write_exclusion_;
  std::int64_t next_id_ = 1;  ///< guarded by write_exclusion_ held exclusively
  std::atomic<std::int64_t> query_count_{0};
};

}  // namespace benchd::microservice
