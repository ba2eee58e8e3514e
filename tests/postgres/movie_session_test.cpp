// MovieSession, the request path of the postgres profile, against a real private cluster: its
// answers equal the core's SQLite answers byte for byte, it never blocks its caller, and it
// reports an unreachable database as unavailable and connects again afterwards.
#include "test_cluster.hpp"

#include <benchd/microservice/movie_json.hpp>
#include <benchd/microservice/movie_service.hpp>
#include <benchd/postgres/movie_database.hpp>
#include <benchd/postgres/movie_session.hpp>
#include <benchd/postgres/pg_connection.hpp>

#include <gtest/gtest.h>

#include <poll.h>

#include <chrono>
#include <string>
#include <vector>

namespace benchd::postgres {
namespace {

using testing::TestCluster;

/// Waits as each step asks, in poll(), until the operation is done: what a thread-per-request
/// plugin does. Fails the test if the socket stays quiet for 30 s.
SessionResult runToEnd(MovieSession& session, SessionStep step) {
  while (step.wait != SessionWait::kDone) {
    pollfd descriptor{
        step.socket, static_cast<short>(step.wait == SessionWait::kReadable ? POLLIN : POLLOUT), 0};
    const int ready = ::poll(&descriptor, 1, 30'000);
    EXPECT_EQ(ready, 1) << "the session's socket stayed quiet for 30 s";
    if (ready != 1) {
      session.abandon();
      return {};
    }
    step = session.advance();
  }
  return session.take();
}

microservice::MovieService coreService(bool read_only) {
  microservice::ServiceProfile profile;
  profile.cache_enabled = false;
  profile.read_only = read_only;
  return microservice::MovieService(profile);
}

const char* const kNewMovies = R"([
  {"title": "Blue Velvet", "releaseYear": 1986, "genre": "MYSTERY", "rating": 7.7,
   "characters": [{"name": "Jeffrey", "actor": {"firstName": "Kyle", "lastName": "MacLachlan"}}],
   "directors": [{"firstName": "David", "lastName": "Lynch"}],
   "writers": [{"lastName": "Lynch"}], "awards": [{"name": "NSFC", "year": 1987}]},
  {"title": "Quote \" and \\ backslash", "directors": [{"lastName": "Allen"}, {"lastName": "Lynch"}]}
])";

TEST(MovieSessionTest, FindsEveryDirectorsMoviesExactlyAsTheCore) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  microservice::MovieService core = coreService(true);
  MovieSession session(test.cluster.connectionString());
  for (const char* last_name : {"Allen", "Hitchcock", "Kubrick", "Nobody", "O'Brien \"x\""}) {
    const SessionResult result = runToEnd(session, session.beginFindByDirector(last_name));
    EXPECT_EQ(result.outcome, SessionOutcome::kSucceeded) << result.text;
    EXPECT_EQ(result.text, *core.moviesByDirector(last_name)) << last_name;
    EXPECT_FALSE(session.busy());
  }
  EXPECT_EQ(session.queriesSent(), 5);
}

TEST(MovieSessionTest, SavesAndDeletesAsTheCoreWithTheSameIdsAndAnswers) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  microservice::MovieService core = coreService(false);
  MovieSession session(test.cluster.connectionString());

  const SessionResult saved =
      runToEnd(session, session.beginInsert(microservice::parseMovies(kNewMovies)));
  ASSERT_EQ(saved.outcome, SessionOutcome::kSucceeded) << saved.text;
  EXPECT_EQ(saved.text, core.saveMovies(kNewMovies));
  EXPECT_EQ(saved.changed_directors, (std::vector<std::string>{"Allen", "Lynch"}));
  for (const char* last_name : {"Allen", "Lynch"}) {
    EXPECT_EQ(runToEnd(session, session.beginFindByDirector(last_name)).text,
              *core.moviesByDirector(last_name))
        << last_name;
  }

  const std::int64_t blue_velvet = microservice::parseMovies(saved.text).at(0).id.value();
  const SessionResult deleted = runToEnd(session, session.beginDelete(blue_velvet));
  ASSERT_EQ(deleted.outcome, SessionOutcome::kSucceeded) << deleted.text;
  EXPECT_EQ(deleted.changed_directors, std::vector<std::string>{"Lynch"});
  core.deleteMovie(blue_velvet);
  EXPECT_EQ(runToEnd(session, session.beginFindByDirector("Lynch")).text,
            *core.moviesByDirector("Lynch"));

  const SessionResult unknown = runToEnd(session, session.beginDelete(blue_velvet));
  EXPECT_EQ(unknown.outcome, SessionOutcome::kSucceeded);
  EXPECT_TRUE(unknown.changed_directors.empty());

  const SessionResult empty = runToEnd(session, session.beginInsert({}));
  EXPECT_EQ(empty.outcome, SessionOutcome::kSucceeded);
  EXPECT_EQ(empty.text, "[]");
}

TEST(MovieSessionTest, NeverBlocksItsCallerWhileTheDatabaseIsBusy) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  PgConnection locker(test.cluster.connectionString());
  locker.execute("BEGIN; LOCK TABLE movie IN ACCESS EXCLUSIVE MODE");

  MovieSession session(test.cluster.connectionString());
  const auto started = std::chrono::steady_clock::now();
  SessionStep step = session.beginFindByDirector("Allen");
  // Connect and send without waiting anywhere but in our own poll().
  int quiet_polls = 0;
  while (step.wait != SessionWait::kDone && quiet_polls < 3) {
    pollfd descriptor{
        step.socket, static_cast<short>(step.wait == SessionWait::kReadable ? POLLIN : POLLOUT), 0};
    if (::poll(&descriptor, 1, 100) == 0) {
      ++quiet_polls;  // the query waits for the lock; the caller is free meanwhile
      continue;
    }
    step = session.advance();
  }
  EXPECT_EQ(quiet_polls, 3);
  EXPECT_TRUE(session.busy());
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));

  locker.execute("COMMIT");
  const SessionResult result = runToEnd(session, step);
  EXPECT_EQ(result.outcome, SessionOutcome::kSucceeded) << result.text;
  EXPECT_NE(result.text.find("Annie Hall"), std::string::npos);
}

TEST(MovieSessionTest, ReportsAStatementTheDatabaseRefusesAsFailedAndStaysUsable) {
  const TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  PgConnection admin(test.cluster.connectionString());
  admin.execute("ALTER TABLE movie RENAME TO movie_away");
  MovieSession session(test.cluster.connectionString());
  const SessionResult failed = runToEnd(session, session.beginFindByDirector("Allen"));
  EXPECT_EQ(failed.outcome, SessionOutcome::kFailed);
  EXPECT_NE(failed.text.find("relation \"movie\" does not exist"), std::string::npos)
      << failed.text;

  admin.execute("ALTER TABLE movie_away RENAME TO movie");
  const SessionResult found = runToEnd(session, session.beginFindByDirector("Allen"));
  EXPECT_EQ(found.outcome, SessionOutcome::kSucceeded) << found.text;
}

TEST(MovieSessionTest, ReportsAnUnreachableDatabaseAsUnavailable) {
  const benchd::testing::TempDir nowhere;
  MovieSession session("host='" + nowhere.path().string() + "' dbname=postgres user=postgres");
  const SessionResult result = runToEnd(session, session.beginFindByDirector("Allen"));
  EXPECT_EQ(result.outcome, SessionOutcome::kUnavailable);
  EXPECT_NE(result.text.find("PostgreSQL: cannot connect"), std::string::npos) << result.text;
  EXPECT_NE(result.text.find(nowhere.path().string()), std::string::npos) << result.text;
}

TEST(MovieSessionTest, ReportsAServerStoppedUnderItAsUnavailableAndConnectsAgainLater) {
  TestCluster test;
  createMovieDatabase(test.cluster.connectionString());
  const std::string conninfo = test.cluster.connectionString();
  MovieSession session(conninfo);
  ASSERT_EQ(runToEnd(session, session.beginFindByDirector("Allen")).outcome,
            SessionOutcome::kSucceeded);
  const std::uint64_t serial_before = session.beginFindByDirector("Allen").socket_serial;
  session.abandon();

  test.cluster.stop();
  const SessionResult lost = runToEnd(session, session.beginFindByDirector("Allen"));
  EXPECT_EQ(lost.outcome, SessionOutcome::kUnavailable) << lost.text;

  test.cluster.startAgain();
  const SessionStep step = session.beginFindByDirector("Kubrick");
  EXPECT_NE(step.socket_serial, serial_before);  // a new connection
  const SessionResult back = runToEnd(session, step);
  EXPECT_EQ(back.outcome, SessionOutcome::kSucceeded) << back.text;
  EXPECT_NE(back.text.find("2001"), std::string::npos);
}

}  // namespace
}  // namespace benchd::postgres
