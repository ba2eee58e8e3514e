// Every approach plugin under the `postgres` profile, served by benchd-worker against a real
// private PostgreSQL cluster: the answers equal the SQLite rows' byte for byte with and without
// no-cache and read-write, and the database faults end in clear answers, never in a hang: the
// server stopped mid-row (503, then served again once it is back), a statement beyond the
// request's database deadline (503, the session connects again), and a pool of one held by a
// locked table (the queue times out with 503s, then a burst is served through one session), and
// one session serving the requests of four threads.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "test_cluster.hpp"
#include "worker_process.hpp"

#include <benchd/postgres/movie_database.hpp>
#include <benchd/postgres/pg_connection.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace benchd::testing {
namespace {

using postgres::testing::TestCluster;
using namespace std::chrono_literals;

const std::string kNoDelay = "delayCallDepth=0&delayInMillis=0";
const std::string kVanSantMovie =
    R"([{"title":"Elephant","releaseYear":2003,"genre":"DRAMA",)"
    R"("directors":[{"firstName":"Gus","lastName":"Van Sant","birthday":"1952-07-24"}],)"
    R"("rating":7.2}])";

/// One cluster per test process (ctest runs each test in its own), with the movies database.
class PluginDatabase : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    cluster_ = std::make_unique<TestCluster>();
    postgres::createMovieDatabase(conninfo());
  }
  static void TearDownTestSuite() { cluster_.reset(); }

  static std::string conninfo() { return cluster_->cluster.connectionString(); }
  static postgres::PrivateCluster& cluster() { return cluster_->cluster; }

  /// A worker serving the plugin on PostgreSQL with `profiles` (postgres added) and `extra`.
  std::unique_ptr<WorkerProcess> servePostgres(std::vector<std::string> profiles,
                                               std::vector<std::string> extra = {}) const {
    std::vector<std::string> args;
    profiles.emplace_back("postgres");
    for (const std::string& profile : profiles) {
      args.emplace_back("--profile");
      args.push_back(profile);
    }
    args.emplace_back("--postgres");
    args.push_back(conninfo());
    args.insert(args.end(), extra.begin(), extra.end());
    return WorkerProcess::serve(GetParam(), args);
  }

  [[nodiscard]] std::string path(const std::string& resource) const {
    return "/" + GetParam() + resource;
  }

 private:
  static inline std::unique_ptr<TestCluster> cluster_;
};

struct Answer {
  unsigned status = 0;
  std::string body;
  bool operator==(const Answer&) const = default;
};

std::ostream& operator<<(std::ostream& out, const Answer& answer) {
  return out << answer.status << " '" << answer.body << "'";
}

/// The same requests, in order, on one keep-alive connection: reads, a read again (the
/// cache), a save, reads of what it changed, a delete, a bad body, an unknown director.
std::vector<Answer> script(std::uint16_t port, const std::string& approach) {
  const std::string movies = "/" + approach + "/movies";
  const std::vector<std::pair<std::string, std::string>> requests = {
      {"GET", movies + "?directorLastName=Allen&" + kNoDelay},
      {"GET", movies + "?directorLastName=Van+Sant&" + kNoDelay},
      {"GET", movies + "?directorLastName=Allen&" + kNoDelay},
      {"POST", movies + "?" + kNoDelay},
      {"GET", movies + "?directorLastName=Van+Sant&" + kNoDelay},
      {"DELETE", movies + "/1?" + kNoDelay},
      {"GET", movies + "?directorLastName=Allen&" + kNoDelay},
      {"POST", movies + "?" + kNoDelay},
      {"GET", movies + "?directorLastName=Nobody&" + kNoDelay},
  };
  HttpConnection client(port);
  std::vector<Answer> answers;
  for (std::size_t index = 0; index < requests.size(); ++index) {
    const auto& [method, target] = requests[index];
    const std::string body = method != "POST" ? "" : (index == 3 ? kVanSantMovie : "[{");
    const HttpResponse response = client.request(method, target, body);
    answers.push_back({response.status, response.body});
  }
  return answers;
}

TEST_P(PluginDatabase, AnswersEqualTheSqliteRowsByteForByte) {
  const std::vector<std::vector<std::string>> profile_sets = {
      {}, {"no-cache"}, {"read-write"}, {"no-cache", "read-write"}};
  for (const std::vector<std::string>& profiles : profile_sets) {
    std::string described;
    std::vector<std::string> sqlite_args;
    for (const std::string& profile : profiles) {
      described += profile + " ";
      sqlite_args.insert(sqlite_args.end(), {"--profile", profile});
    }
    SCOPED_TRACE("profiles: " + described);
    auto sqlite = WorkerProcess::serve(GetParam(), sqlite_args);
    ASSERT_TRUE(sqlite);
    const std::vector<Answer> expected = script(sqlite->port(), GetParam());

    postgres::resetMovieDatabase(conninfo());
    auto worker = servePostgres(profiles);
    ASSERT_TRUE(worker);
    const std::vector<Answer> answers = script(worker->port(), GetParam());
    EXPECT_EQ(answers, expected);
    ASSERT_EQ(answers.size(), 9U);
    EXPECT_EQ(answers[0].status, 200U);
    EXPECT_NE(answers[0].body.find("Allen"), std::string::npos) << answers[0];
    EXPECT_EQ(answers[7].status, 400U) << answers[7];

    // The statements went to PostgreSQL, none to SQLite.
    const auto stats = worker->waitStats([](const WorkerStats& s) {
      return s.counters.contains("db_queries") && s.counter("requests_in_flight") == 0;
    });
    ASSERT_TRUE(stats) << worker->stderrText();
    EXPECT_GT(stats->counter("db_queries"), 0);
    EXPECT_EQ(stats->counter("database_queries"), 0);
    EXPECT_TRUE(stats->counters.contains("db_pool_wait_micros")) << "the plugin's pool counters";
  }
}

/// GETs until one is answered `status`, at most `attempts` times; the last answer.
HttpResponse askUntil(std::uint16_t port, const std::string& target, unsigned status,
                      int attempts) {
  HttpResponse response;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    HttpConnection client(port, 20s);
    response = client.request("GET", target);
    if (response.status == status)
      break;
    std::this_thread::sleep_for(100ms);
  }
  return response;
}

TEST_P(PluginDatabase, AStoppedServerIsA503AndTheWorkerRecoversWhenItIsBack) {
  postgres::resetMovieDatabase(conninfo());
  auto worker = servePostgres({"no-cache"}, {"--option", "db_deadline_ms=5000"});
  ASSERT_TRUE(worker);
  const std::string target = path("/movies?directorLastName=Allen&" + kNoDelay);
  HttpConnection client(worker->port(), 20s);
  ASSERT_EQ(client.request("GET", target).status, 200U);

  cluster().stop();
  const auto asked = std::chrono::steady_clock::now();
  const HttpResponse down = client.request("GET", target);
  EXPECT_EQ(down.status, 503U) << down.body;
  EXPECT_NE(down.body.find(R"("error":"Service Unavailable")"), std::string::npos) << down.body;
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 5s) << "answered before the deadline";

  cluster().startAgain();
  const HttpResponse back = askUntil(worker->port(), target, 200, 20);
  EXPECT_EQ(back.status, 200U) << back.body;
  EXPECT_NE(back.body.find("Allen"), std::string::npos) << back.body;
}

/// Holds an exclusive lock on the movies until release(): every statement on them waits.
class TableLock {
 public:
  explicit TableLock(const std::string& conninfo) : connection_(conninfo) {
    connection_.execute("BEGIN");
    connection_.execute("LOCK TABLE movie IN ACCESS EXCLUSIVE MODE");
  }
  void release() {
    if (held_)
      connection_.execute("COMMIT");
    held_ = false;
  }
  ~TableLock() {
    try {
      release();
    } catch (...) {
      // The connection is gone; the lock went with it.
    }
  }
  TableLock(const TableLock&) = delete;
  TableLock& operator=(const TableLock&) = delete;

 private:
  postgres::PgConnection connection_;
  bool held_ = true;
};

TEST_P(PluginDatabase, AStatementBeyondTheDeadlineIsAbandonedWithA503) {
  postgres::resetMovieDatabase(conninfo());
  auto worker = servePostgres({"no-cache"}, {"--option", "db_deadline_ms=700"});
  ASSERT_TRUE(worker);
  const std::string target = path("/movies?directorLastName=Allen&" + kNoDelay);
  {
    TableLock lock(conninfo());
    HttpConnection client(worker->port(), 20s);
    const HttpResponse slow = client.request("GET", target);
    EXPECT_EQ(slow.status, 503U) << slow.body;
    EXPECT_NE(slow.body.find("the database did not answer within the database deadline of 700 ms"),
              std::string::npos)
        << slow.body;
    EXPECT_GE(slow.elapsed, 600ms);
    EXPECT_LT(slow.elapsed, 10s);
  }
  const HttpResponse served = askUntil(worker->port(), target, 200, 5);
  EXPECT_EQ(served.status, 200U) << served.body;
  const auto stats =
      worker->waitStats([](const WorkerStats& s) { return s.counter("db_pool_timeouts") >= 1; });
  EXPECT_TRUE(stats) << "db_pool_timeouts counts the abandoned statement";
}

TEST_P(PluginDatabase, AnExhaustedPoolQueuesThenTimesOutAndNeverDeadlocks) {
  raiseOpenFileLimit();
  postgres::resetMovieDatabase(conninfo());
  auto worker = servePostgres({"no-cache"}, {"--db-pool", "1", "--option", "db_deadline_ms=1500"});
  ASSERT_TRUE(worker);
  const std::string target = path("/movies?directorLastName=Allen&" + kNoDelay);
  {
    // The one session is stuck on the lock; the other requests queue for it until their
    // deadline.
    TableLock lock(conninfo());
    const std::vector<BatchResult> blocked = concurrentGets(worker->port(), target, 4, 30s);
    for (const BatchResult& result : blocked) {
      EXPECT_EQ(result.status, 503U) << result.error;
      EXPECT_LT(result.elapsed, 10s);
    }
    std::string seen;
    const auto stats = worker->waitStats([&seen](const WorkerStats& s) {
      seen = "db_pool_timeouts " + std::to_string(s.counter("db_pool_timeouts")) +
             ", db_pool_waits " + std::to_string(s.counter("db_pool_waits"));
      return s.counter("db_pool_timeouts") >= 4 && s.counter("db_pool_waits") >= 3;
    });
    EXPECT_TRUE(stats) << "3 requests waited for the session and timed out, 1 in the statement; "
                       << "last seen: " << seen;
  }
  // 50 at once through one session: they queue and are all served.
  const std::vector<BatchResult> burst = concurrentGets(worker->port(), target, 50, 60s);
  int served = 0;
  for (const BatchResult& result : burst)
    served += result.status == 200U ? 1 : 0;
  EXPECT_EQ(served, 50);
  const auto stats = worker->waitStats([](const WorkerStats& s) {
    return s.counter("requests_in_flight") == 0 && s.counter("db_connections_open") == 1;
  });
  EXPECT_TRUE(stats) << "the pool of 1 opened one session";
}

TEST_P(PluginDatabase, OneSessionServesTheRequestsOfEveryThread) {
  // Four event loops (or four starting pool threads) and a pool of one: the host's pool is
  // one budget whatever the threads, so the session freed on one thread serves the requests
  // queued on the others (h2o hands it over between its loops).
  raiseOpenFileLimit();
  postgres::resetMovieDatabase(conninfo());
  auto worker = servePostgres({"no-cache"}, {"--threads", "4", "--db-pool", "1"});
  ASSERT_TRUE(worker);
  const std::vector<BatchResult> burst =
      concurrentGets(worker->port(), path("/movies?directorLastName=Allen&" + kNoDelay), 40, 60s);
  int served = 0;
  for (const BatchResult& result : burst) {
    served += result.status == 200U ? 1 : 0;
    EXPECT_EQ(result.status, 200U) << result.error;
  }
  EXPECT_EQ(served, 40);
  EXPECT_TRUE(worker->waitStats([](const WorkerStats& s) {
    return s.counter("requests_in_flight") == 0 && s.counter("db_connections_open") == 1;
  })) << "the pool of 1 opened one session";
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, PluginDatabase, ::testing::ValuesIn(approachPlugins()),
                         [](const auto& param_info) { return testNameOf(param_info.param); });

}  // namespace
}  // namespace benchd::testing
