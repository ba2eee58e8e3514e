// The ABI 2.1 db_* functions of the worker's host table, called as a plugin calls them, against
// a real private cluster: the pool bound, answers equal to the core's, the core's cache and
// read-only rule in front of PostgreSQL, and the statuses of a bad body and a lost database.
#include "test_cluster.hpp"

#include <benchd/microservice/movie_service.hpp>
#include <benchd/plugin.h>
#include <benchd/postgres/movie_database.hpp>

#include <gtest/gtest.h>

#include <poll.h>

#include <host_api.hpp>
#include <string>

namespace benchd::postgres {
namespace {

using testing::TestCluster;

void appendTo(void* context, const char* data, std::size_t size) {
  static_cast<std::string*>(context)->append(data, size);
}

/// One operation from begin to db_finish, waiting in poll() as a thread-per-request plugin.
struct Outcome {
  benchd_status status = BENCHD_ERR_INTERNAL;
  std::string answer;
  std::string message;
  int waits = 0;  ///< how often the plugin had to wait for the socket
};

template <typename Begin>
Outcome run(const benchd_host_api& host, benchd_db_session* session, Begin begin) {
  Outcome outcome;
  benchd_error error{sizeof(benchd_error), {}};
  benchd_db_step step{sizeof(benchd_db_step), BENCHD_DB_DONE, -1, 0};
  if (const benchd_status started = begin(&step, &error); started != BENCHD_OK) {
    return {started, "", error.message, 0};
  }
  while (step.wait != BENCHD_DB_DONE) {
    pollfd descriptor{step.socket,
                      static_cast<short>(step.wait == BENCHD_DB_READABLE ? POLLIN : POLLOUT), 0};
    EXPECT_EQ(::poll(&descriptor, 1, 30'000), 1);
    ++outcome.waits;
    EXPECT_EQ(host.db_continue(session, &step, &error), BENCHD_OK) << error.message;
  }
  outcome.status = host.db_finish(session, &appendTo, &outcome.answer, &error);
  if (outcome.status != BENCHD_OK) {
    outcome.message = error.message;
  }
  return outcome;
}

Outcome find(const benchd_host_api& host, benchd_db_session* session, const std::string& name) {
  return run(host, session, [&](benchd_db_step* step, benchd_error* error) {
    return host.db_begin_movies_by_director(session, name.data(), name.size(), step, error);
  });
}

Outcome save(const benchd_host_api& host, benchd_db_session* session, const std::string& body) {
  return run(host, session, [&](benchd_db_step* step, benchd_error* error) {
    return host.db_begin_save_movies(session, body.data(), body.size(), step, error);
  });
}

microservice::ServiceProfile profile(bool cache, bool read_only) {
  microservice::ServiceProfile chosen;
  chosen.cache_enabled = cache;
  chosen.read_only = read_only;
  return chosen;
}

TEST(HostDatabaseTest, ARowWithoutPostgresHasNoPool) {
  microservice::MovieService service(profile(true, true));
  worker::HostApi api(service, "test");
  const benchd_host_api& host = *api.table();
  ASSERT_GE(host.struct_size, offsetof(benchd_host_api, db_abandon) + sizeof(host.db_abandon));
  EXPECT_EQ(host.db_pool_size(host.host_context), 0U);
  benchd_db_session* session = nullptr;
  benchd_error error{sizeof(benchd_error), {}};
  EXPECT_EQ(host.db_open(host.host_context, &session, &error), BENCHD_ERR_STATE);
  EXPECT_NE(std::string(error.message).find("no `postgres` profile"), std::string::npos);
}

TEST(HostDatabaseTest, OpensAtMostThePoolAndAnswersAsTheCoreBehindItsCache) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  microservice::MovieService service(profile(true, true));
  microservice::MovieService reference(profile(false, true));
  worker::HostApi api(service, "test", {test.cluster.connectionString(), 2});
  const benchd_host_api& host = *api.table();
  EXPECT_EQ(host.db_pool_size(host.host_context), 2U);

  benchd_error error{sizeof(benchd_error), {}};
  benchd_db_session* first = nullptr;
  benchd_db_session* second = nullptr;
  benchd_db_session* third = nullptr;
  ASSERT_EQ(host.db_open(host.host_context, &first, &error), BENCHD_OK);
  ASSERT_EQ(host.db_open(host.host_context, &second, &error), BENCHD_OK);
  EXPECT_EQ(host.db_open(host.host_context, &third, &error), BENCHD_ERR_STATE);
  EXPECT_NE(std::string(error.message).find("all 2 sessions"), std::string::npos);

  const Outcome loaded = find(host, first, "Kubrick");
  ASSERT_EQ(loaded.status, BENCHD_OK) << loaded.message;
  EXPECT_EQ(loaded.answer, *reference.moviesByDirector("Kubrick"));
  EXPECT_GT(loaded.waits, 0);  // connected and queried through the socket
  EXPECT_EQ(api.database().queries(), 1);

  const Outcome cached = find(host, second, "Kubrick");
  EXPECT_EQ(cached.answer, loaded.answer);
  EXPECT_EQ(cached.waits, 0);  // from the core's cache, no query
  EXPECT_EQ(api.database().queries(), 1);
  EXPECT_EQ(service.counters().cache_hits, 1);
  EXPECT_EQ(api.database().sessionsBusy(), 0);

  // Read-only (the default): a save echoes its input without the database; a bad body is 400.
  const std::string body = R"([{"title":"Echo","directors":[{"lastName":"Kubrick"}]}])";
  const Outcome echoed = save(host, first, body);
  EXPECT_EQ(echoed.answer, reference.saveMovies(body));
  EXPECT_EQ(echoed.waits, 0);
  const Outcome refused = save(host, first, "{not an array");
  EXPECT_EQ(refused.status, BENCHD_ERR_INVALID_ARGUMENT);
  EXPECT_FALSE(refused.message.empty());

  host.db_close(first);
  EXPECT_EQ(host.db_open(host.host_context, &third, &error), BENCHD_OK);  // room again
  host.db_close(second);
  host.db_close(third);
}

TEST(HostDatabaseTest, ReadWriteStoresInPostgresAndEvictsTheCache) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  microservice::MovieService service(profile(true, false));
  microservice::MovieService reference(profile(false, false));
  worker::HostApi api(service, "test", {test.cluster.connectionString(), 1});
  const benchd_host_api& host = *api.table();
  benchd_error error{sizeof(benchd_error), {}};
  benchd_db_session* session = nullptr;
  ASSERT_EQ(host.db_open(host.host_context, &session, &error), BENCHD_OK);

  EXPECT_EQ(find(host, session, "Allen").answer, *reference.moviesByDirector("Allen"));
  const std::string body = R"([{"title":"A New One","directors":[{"lastName":"Allen"}]}])";
  const Outcome saved = save(host, session, body);
  ASSERT_EQ(saved.status, BENCHD_OK) << saved.message;
  EXPECT_EQ(saved.answer, reference.saveMovies(body));
  EXPECT_EQ(api.database().queries(), 3);  // the find, then the ids and the insert
  // The cached answer was evicted: the new movie is found.
  const Outcome after = find(host, session, "Allen");
  EXPECT_GT(after.waits, 0);
  EXPECT_EQ(after.answer, *reference.moviesByDirector("Allen"));
  host.db_close(session);
}

TEST(HostDatabaseTest, ALostDatabaseIsUnavailableAndTheNextOperationConnectsAgain) {
  TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  microservice::MovieService service(profile(false, true));
  worker::HostApi api(service, "test", {test.cluster.connectionString(), 1});
  const benchd_host_api& host = *api.table();
  benchd_error error{sizeof(benchd_error), {}};
  benchd_db_session* session = nullptr;
  ASSERT_EQ(host.db_open(host.host_context, &session, &error), BENCHD_OK);
  ASSERT_EQ(find(host, session, "Allen").status, BENCHD_OK);

  test.cluster.stop();
  const Outcome lost = find(host, session, "Allen");
  EXPECT_EQ(lost.status, BENCHD_ERR_UNAVAILABLE);
  EXPECT_NE(lost.message.find("PostgreSQL"), std::string::npos) << lost.message;

  test.cluster.startAgain();
  EXPECT_EQ(find(host, session, "Allen").status, BENCHD_OK);
  host.db_close(session);
}

}  // namespace
}  // namespace benchd::postgres
