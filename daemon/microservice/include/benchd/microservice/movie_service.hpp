#pragma once

#include <benchd/microservice/clock.hpp>
#include <benchd/microservice/invalid_movies_error.hpp>
#include <benchd/microservice/service_profile.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace benchd::microservice {

/// Counters of the core, for tests and worker stats. Monotonic since construction.
struct MovieServiceCounters {
  std::int64_t database_queries = 0;  ///< SELECTs issued against SQLite
  std::int64_t cache_hits = 0;
  std::int64_t cache_misses = 0;
};

/// The benchmark microservice's business logic, identical for every approach plugin: the
/// movie repository (an in-memory SQLite database seeded with the 8 reference movies) behind
/// a per-director cache with one-hour expiry.
///
/// Thread-safety: every member function may be called concurrently from any number of
/// threads. A cache hit takes no lock shared between threads, so hits scale with cores.
class MovieService {
 public:
  /// Seeds the database. `clock` drives cache expiry; tests inject a manual clock.
  explicit MovieService(ServiceProfile profile, std::shared_ptr<const Clock> clock = steadyClock());
  ~MovieService();
  MovieService(const MovieService&) = delete;
  MovieService& operator=(const MovieService&) = delete;

  /// Compact JSON array of the movies whose director has this last name, ordered by title,
  /// release year, genre and id; "[]" when there are none. The returned string is immutable
  /// and may be shared with other callers.
  [[nodiscard]] std::shared_ptr<const std::string> moviesByDirector(std::string_view last_name);

  /// Handles a POST body (a JSON array of movies). Read-only profile: returns the input
  /// re-serialised compactly, stores nothing. Read-write: stores the movies, evicts the cache
  /// entries of their directors and returns them with their new ids.
  /// Throws InvalidMoviesError for a malformed body.
  [[nodiscard]] std::string saveMovies(std::string_view json_body);

  /// Read-write profile: deletes the movie (and evicts its directors' cache entries); unknown
  /// ids are ignored. Read-only profile: does nothing.
  void deleteMovie(std::int64_t movie_id);

  /// The cache's part of a GET whose answer the caller loads from another database (the
  /// postgres profile's, on the caller's own event loop): the cached answer, or null on a miss
  /// or when the profile is "no-cache". After a miss the caller loads the answer and hands it
  /// to rememberMoviesByDirector() with the lookup's generation.
  struct CacheLookup {
    std::shared_ptr<const std::string> json;
    std::uint64_t generation = 0;
  };
  [[nodiscard]] CacheLookup lookupMoviesByDirector(std::string_view last_name);
  /// Caches a loaded answer, unless the cache is off or a change evicted entries since the
  /// lookup (the answer may predate it).
  void rememberMoviesByDirector(std::string_view last_name, std::string json,
                                std::uint64_t generation);
  /// Evicts the cache entries of directors whose movies the caller changed in another
  /// database.
  void forgetDirectors(std::span<const std::string> last_names);

  [[nodiscard]] MovieServiceCounters counters() const;
  [[nodiscard]] const ServiceProfile& profile() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::microservice
