// `benchd run` on rows with the `postgres` profile, as a process: a private PostgreSQL cluster
// started for the run serves every approach plugin with 0 errors, a plugin that does not
// implement postgres gets a failed row saying so, and a server that cannot be reached fails its
// rows with PostgreSQL's message while the other rows run.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "scenario_csv.hpp"

#include <benchd/results/results_table.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <temp_dir.hpp>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

fs::path writeScenarioFile(const fs::path& folder, const std::string& rows) {
  const fs::path file = folder / "pg.csv";
  std::ofstream(file) << kScenarioCsvHeader << rows;
  return file;
}

std::string readText(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\nstdout:\n" + result.out + "\nstderr:\n" +
         result.err;
}

double number(const results::ResultsTable& table, const std::string& scenario,
              const std::string& approach, const std::string& metric) {
  for (const results::ResultsRow& row : table.rows()) {
    if (row.scenario == scenario && row.approach == approach)
      return table.number(row, metric).value_or(-1.0);
  }
  ADD_FAILURE() << "no row " << scenario << " x " << approach;
  return -1.0;
}

TEST(PostgresRun, EveryPluginServesThePostgresRowsOfAPrivateClusterWithoutErrors) {
  const TempDir dir;
  const fs::path file =
      writeScenarioFile(dir.path(),
                        "pg-get,get-movies.js,postgres|no-cache,0,0,10,50,1,3\n"
                        "pg-write,get-movies.js,postgres|read-write,0,0,10,50,0,3\n");
  const std::string wrong_answers = testPluginDir() + "/wrong-answers";
  const CommandResult result = runCommand(cliPath(),
                                          {"run", file.string(), "-o", dir.path().string(),
                                           "--plugin-dir", wrong_answers, "--db-pool", "4"},
                                          std::chrono::minutes(5));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  for (const std::string& approach : approachPlugins()) {
    for (const char* scenario : {"pg-get", "pg-write"}) {
      SCOPED_TRACE(std::string(scenario) + " x " + approach);
      EXPECT_GT(number(table, scenario, approach, "requests_ok"), 0) << describe(result);
      EXPECT_EQ(number(table, scenario, approach, "requests_error"), 0) << describe(result);
    }
  }
  // The test plugin implements no-keep-alive only: its rows fail, naming why.
  EXPECT_EQ(number(table, "pg-get", "wrong-answers", "requests_error"), 1);
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("plugin wrong-answers does not implement postgres (ABI 2.1)"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("a private PostgreSQL 15 cluster"), std::string::npos) << markdown;
  // The cluster is sampled beside the worker, and taken out of what "the rest of the host" used.
  EXPECT_NE(markdown.find("PostgreSQL (all its processes): "), std::string::npos) << markdown;
}

TEST(PostgresRun, AnUnreachableServerFailsItsRowsWithPostgresMessageAndTheRunGoesOn) {
  const TempDir dir;
  const fs::path file = writeScenarioFile(dir.path(),
                                          "pg-get,get-movies.js,postgres,0,0,5,20,0,2\n"
                                          "plain-get,get-movies.js,,0,0,5,20,0,2\n");
  const std::string nowhere = "host=" + (dir.path() / "no-server").string() + " dbname=movies";
  const CommandResult result = runCommand(cliPath(),
                                          {"run", file.string(), "-o", dir.path().string(), "-a",
                                           "callbacks-asio", "--postgres", nowhere},
                                          std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  EXPECT_EQ(number(table, "pg-get", "callbacks-asio", "requests_error"), 1);
  EXPECT_GT(number(table, "plain-get", "callbacks-asio", "requests_ok"), 0);
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("PostgreSQL could not be set up: cannot connect to PostgreSQL"),
            std::string::npos)
      << markdown;
}

TEST(PostgresRun, ABadDatabasePoolIsAUsageError) {
  const CommandResult result = runCommand(cliPath(), {"run", "--db-pool", "0", "--plan"});
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_NE(result.err.find("--db-pool: expected an integer from 1 to 500, got '0'"),
            std::string::npos)
      << describe(result);
}

}  // namespace
}  // namespace benchd::testing
