// `benchd serve` as a real process: the token, the API's first resources, a run driven through
// the API to completion while its events stream, and a clean stop on SIGTERM.
#include "daemon_process.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;

TEST(BenchdServe, MakesAPrivateTokenAndGuardsEveryEndpointButHealth) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  struct stat status {};
  ASSERT_EQ(::stat((dir.path() / "state" / "token").c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600U);
  EXPECT_EQ(daemon.token().size(), 64U);

  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const HttpResponse anonymous = daemon.call("GET", "/api/v1/version", {}, false);
  EXPECT_EQ(anonymous.status, 401U);
  EXPECT_EQ(anonymous.header("content-type"), "application/problem+json");
  EXPECT_EQ(daemon.call("GET", "/api/v1/version").status, 200U);
  const HttpResponse approaches = daemon.call("GET", "/api/v1/approaches");
  EXPECT_EQ(approaches.status, 200U);
  EXPECT_NE(approaches.body.find("\"name\":\"callbacks-asio\""), std::string::npos);

  // Bad requests name the field.
  const HttpResponse not_json = daemon.call("POST", "/api/v1/runs", "{oops");
  EXPECT_EQ(not_json.status, 400U);
  EXPECT_NE(not_json.body.find("\"field\":\"body\""), std::string::npos) << not_json.body;
  const HttpResponse traversal =
      daemon.call("POST", "/api/v1/runs", R"({"scenarioFile":"../../etc/passwd"})");
  EXPECT_EQ(traversal.status, 400U);
  EXPECT_NE(traversal.body.find("\"field\":\"scenarioFile\""), std::string::npos);
  const HttpResponse unknown = daemon.call(
      "POST", "/api/v1/runs", R"({"scenarioFile":"scenarios-ci.csv","approaches":["nope"]})");
  EXPECT_EQ(unknown.status, 400U);
  EXPECT_NE(unknown.body.find("\"field\":\"approaches\""), std::string::npos);
  const HttpResponse negative = daemon.call(
      "POST", "/api/v1/runs", R"({"scenarioFile":"scenarios-ci.csv","testSeconds":-1})");
  EXPECT_EQ(negative.status, 400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/12345").status, 404U);
  daemon.stop();
}

TEST(BenchdServe, RunsAScenarioFileThroughTheApiWhileItsEventsStream) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const HttpResponse created = daemon.call(
      "POST", "/api/v1/runs",
      R"({"repeat":1,"scenarioFile":"scenarios-ci.csv","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":2})");
  ASSERT_EQ(created.status, 202U) << created.body;
  EXPECT_EQ(created.header("location"), "/api/v1/runs/1");

  const std::string events = followEvents(daemon.port(), daemon.token(), 1, 120s);
  EXPECT_NE(events.find("text/event-stream"), std::string::npos) << events.substr(0, 500);
  EXPECT_GE(occurrences(events, "event: snapshot"), 4U)
      << "four 2 s test phases, a snapshot a second";
  EXPECT_GE(occurrences(events, "event: row"), 3U);
  EXPECT_NE(events.find("\"status\":\"completed\""), std::string::npos) << events;

  const HttpResponse run = daemon.call("GET", "/api/v1/runs/1");
  EXPECT_EQ(run.status, 200U);
  EXPECT_NE(run.body.find("\"status\":\"completed\""), std::string::npos) << run.body;
  EXPECT_TRUE(fs::exists(dir.path() / "state" / "results" / "run-1" / "results.md"));
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 409U);
  // The log says what happened to the run, one line each.
  EXPECT_TRUE(daemon.waitForLog("benchd: run 1 completed after ")) << daemon.process().stderrText();
  const std::string log = daemon.process().stderrText();
  EXPECT_NE(log.find("benchd: run 1 queued: "), std::string::npos) << log;
  EXPECT_NE(log.find("benchd: run 1 started: scenarios-ci.csv, 4 row(s) x 1 approach(es)"),
            std::string::npos)
      << log;
  // A finished run's stream ends at once with its status.
  EXPECT_NE(followEvents(daemon.port(), daemon.token(), 1, 10s).find("event: end"),
            std::string::npos);
  daemon.stop();
}

}  // namespace
}  // namespace benchd::control
