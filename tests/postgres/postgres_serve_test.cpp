// `benchd serve` running a postgres row, as a process over HTTP: the daemon starts its private
// cluster like `benchd run`, and the API serves the database's samples with every second
// (api/openapi.yaml, Second.database) and in the result's diagnostics; other rows' seconds say
// null.
#include "daemon_process.hpp"

#include <gtest/gtest.h>

#include <string>
#include <temp_dir.hpp>

namespace benchd::control::testing {
namespace {

TEST(PostgresServe, ThePostgresRowOfARunThroughTheApiIsServedWithItsDatabasesSamples) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "db_pool = 4\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string file = std::string(benchd::testing::kScenarioCsvHeader) +
                           "pg,get-movies,postgres|no-cache,0,0,8,,0,3\n"
                           "plain,get-movies,,0,0,8,,0,2\n";
  const HttpResponse stored = daemon.put("/api/v1/scenario-files/pg.csv", file, "text/csv");
  ASSERT_EQ(stored.status, 201U) << stored.body;
  const HttpResponse created =
      daemon.call("POST", "/api/v1/runs",
                  R"({"repeat":1,"scenarioFile":"pg.csv","approaches":["threads-asio"]})");
  ASSERT_EQ(created.status, 202U) << created.body;
  const std::string live =
      followEvents(daemon.port(), daemon.token(), 1, std::chrono::seconds(180));
  ASSERT_NE(live.find("\"status\":\"completed\""), std::string::npos)
      << live << daemon.process().stderrText();
  // The live seconds carry the database too.
  EXPECT_NE(live.find("\"database\":{\"cpuPercent\":"), std::string::npos) << live;

  const rapidjson::Document results = jsonBody(daemon.call("GET", "/api/v1/runs/1/results"));
  ASSERT_TRUE(results.HasMember("rows"));
  int checked = 0;
  for (const auto& row : results["rows"].GetArray()) {
    const std::string scenario = stringMember(row, "scenario");
    SCOPED_TRACE(scenario + ": " + stringMember(row, "failureReason"));
    EXPECT_GT(row["metrics"]["requests_ok"].GetDouble(), 0.0);
    EXPECT_EQ(row["metrics"]["requests_error"].GetDouble(), 0.0);
    const auto& diagnostics = row["diagnostics"];
    EXPECT_EQ(diagnostics["databaseSampled"].GetBool(), scenario == "pg");
    if (scenario == "pg") {
      EXPECT_GT(diagnostics["databaseMibMax"].GetDouble(), 1.0);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);

  const rapidjson::Document pg =
      jsonBody(daemon.call("GET", "/api/v1/runs/1/results/pg/threads-asio/seconds"));
  ASSERT_GE(pg["seconds"].Size(), 2U);
  for (const auto& second : pg["seconds"].GetArray()) {
    ASSERT_TRUE(second["database"].IsObject());
    // The postmaster and its background processes at least, and the pool's backends.
    EXPECT_GE(second["database"]["processes"].GetUint64(), 5U);
    EXPECT_GT(second["database"]["mib"].GetDouble(), 1.0);
    EXPECT_GE(second["database"]["cpuPercent"].GetDouble(), 0.0);
  }
  const rapidjson::Document plain =
      jsonBody(daemon.call("GET", "/api/v1/runs/1/results/plain/threads-asio/seconds"));
  ASSERT_GE(plain["seconds"].Size(), 1U);
  for (const auto& second : plain["seconds"].GetArray())
    EXPECT_TRUE(second["database"].IsNull());
  daemon.stop();
}

}  // namespace
}  // namespace benchd::control::testing
