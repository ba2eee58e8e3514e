#pragma once

#include <benchd/microservice/movie_service.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace benchd::microservice::testing {

/// Expects the service's counters to be exactly these.
inline void expectCounters(const MovieService& service, std::int64_t database_queries,
                           std::int64_t cache_hits, std::int64_t cache_misses) {
  const MovieServiceCounters counters = service.counters();
  EXPECT_EQ(counters.database_queries, database_queries);
  EXPECT_EQ(counters.cache_hits, cache_hits);
  EXPECT_EQ(counters.cache_misses, cache_misses);
}

}  // namespace benchd::microservice::testing
