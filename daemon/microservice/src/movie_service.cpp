#include "director_cache.hpp"
#include "movie_repository.hpp"
#include "seed_movies.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_service.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace benchd::microservice {
namespace {

/// Like the reference service's Caffeine spec "expireAfterWrite=1h".
constexpr std::chrono::hours kCacheTimeToLive{1};

std::vector<std::string> directorLastNames(const std::vector<Movie>& movies) {
  std::vector<std::string> last_names;
  for (const Movie& movie : movies) {
    for (const Person& director : movie.directors) {
      if (director.last_name) {
        last_names.push_back(*director.last_name);
      }
    }
  }
  std::sort(last_names.begin(), last_names.end());
  last_names.erase(std::unique(last_names.begin(), last_names.end()), last_names.end());
  return last_names;
}

}  // namespace

struct MovieService::Impl {
  Impl(ServiceProfile service_profile, std::shared_ptr<const Clock> clock)
      : profile(service_profile) {
    repository.insert(parseMovies(seedMoviesJson()));
    if (profile.cache_enabled) {
      if (!clock) {
        throw std::invalid_argument("MovieService: the clock must not be null");
      }
      cache.emplace(std::move(clock), kCacheTimeToLive, [this](std::string_view last_name) {
        return repository.findJsonByDirectorLastName(last_name);
      });
    }
  }

  const ServiceProfile profile;
  MovieRepository repository;
  std::optional<DirectorCache> cache;  ///< engaged unless the profile is "no-cache"
};

MovieService::MovieService(ServiceProfile profile, std::shared_ptr<const Clock> clock)
    : impl_(std::make_unique<Impl>(profile, std::move(clock))) {}

MovieService::~MovieService() = default;

std::shared_ptr<const std::string> MovieService::moviesByDirector(std::string_view last_name) {
  if (impl_->cache) {
    return impl_->cache->get(last_name);
  }
  return std::make_shared<const std::string>(
      impl_->repository.findJsonByDirectorLastName(last_name));
}

std::string MovieService::saveMovies(std::string_view json_body) {
  std::vector<Movie> movies = parseMovies(json_body);
  if (impl_->profile.read_only) {
    return serializeMovies(movies);
  }
  std::vector<Movie> stored = impl_->repository.insert(std::move(movies));
  if (impl_->cache) {
    impl_->cache->evict(directorLastNames(stored));
  }
  return serializeMovies(stored);
}

void MovieService::deleteMovie(std::int64_t movie_id) {
  if (impl_->profile.read_only) {
    return;
  }
  const std::vector<std::string> last_names = impl_->repository.deleteById(movie_id);
  if (impl_->cache && !last_names.empty()) {
    impl_->cache->evict(last_names);
  }
}

MovieService::CacheLookup MovieService::lookupMoviesByDirector(std::string_view last_name) {
  if (!impl_->cache) {
    return {};
  }
  DirectorCache::Lookup found = impl_->cache->find(last_name);
  return {std::move(found.json), found.generation};
}

void MovieService::rememberMoviesByDirector(std::string_view last_name, std::string json,
                                            std::uint64_t generation) {
  if (impl_->cache) {
    impl_->cache->store(last_name, std::move(json), generation);
  }
}

void MovieService::forgetDirectors(std::span<const std::string> last_names) {
  if (impl_->cache && !last_names.empty()) {
    impl_->cache->evict(last_names);
  }
}

MovieServiceCounters MovieService::counters() const {
  MovieServiceCounters counters;
  counters.database_queries = impl_->repository.queryCount();
  if (impl_->cache) {
    counters.cache_hits = impl_->cache->hits();
    counters.cache_misses = impl_->cache->misses();
  }
  return counters;
}

const ServiceProfile& MovieService::profile() const noexcept {
  return impl_->profile;
}

}  // namespace benchd::microservice
