#pragma once

#include <benchd/microservice/clock.hpp>
#include <benchd/microservice/invalid_movies_error.hpp>
#include <benchd/microservice/service_profile.hpp>

#include <cstdint>
#include <memory>
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

  [[nodiscard]] MovieServiceCounters counters() const;
  [[nodiscard]] const ServiceProfile& profile() const noexcept;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace benchd::microservice
