// `benchd run` on rows with the `postgres` profile, as a process: a private PostgreSQL cluster
// started for the run serves every approach plugin with 0 errors, a plugin that does not
// implement postgres gets a failed row saying so, and a server that cannot be reached fails its
// rows with PostgreSQL's message while the other rows run. Given a server of the user's
// (--postgres), a run works in a schema of its own there and leaves everything else as it was.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "scenario_csv.hpp"
#include "test_cluster.hpp"

#include <benchd/plugin.h>
#include <benchd/postgres/pg_connection.hpp>
#include <benchd/results/results_table.hpp>

#include <gtest/gtest.h>

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <temp_dir.hpp>
#include <thread>
#include <vector>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

fs::path writeScenarioFile(const fs::path& folder, const std::string& rows) {
  fs::path file = folder / "pg.csv";
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
  const CommandResult result =
      runCommand(cliPath(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
                  wrong_answers, "--db-pool", "4"},
                 std::chrono::minutes(5));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
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
  EXPECT_NE(markdown.find("plugin wrong-answers does not implement postgres (ABI " +
                          std::to_string(BENCHD_ABI_MAJOR) + "." +
                          std::to_string(BENCHD_ABI_MINOR) + ")"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("a private PostgreSQL 15 cluster"), std::string::npos) << markdown;
  // The cluster is sampled beside the worker, and taken out of what "the rest of the host" used.
  EXPECT_NE(markdown.find("PostgreSQL (all its processes): "), std::string::npos) << markdown;
}

/// libmicrohttpd's event-driven modes wait for the database in their reactor (its own pool of
/// host sessions, the sessions' sockets in its epoll) rather than in the blocking pool of its
/// default mode: both serve the postgres rows, reads through a small pool and writes.
TEST(PostgresRun, LibmicrohttpdServesThePostgresRowsInEveryMode) {
  const TempDir dir;
  const fs::path file =
      writeScenarioFile(dir.path(),
                        "pg-get,get-movies.js,postgres|no-cache,0,0,10,50,0,3\n"
                        "pg-write,get-movies.js,postgres|read-write,1,0,10,50,0,3\n");
  const std::vector<std::string> variants = {"libmicrohttpd[mode=internal]",
                                             "libmicrohttpd[mode=pool,threads=2]"};
  const CommandResult result =
      runCommand(cliPath(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  variants[0] + "," + variants[1], "--db-pool", "2"},
                 std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  for (const std::string& approach : variants) {
    for (const char* scenario : {"pg-get", "pg-write"}) {
      SCOPED_TRACE(std::string(scenario) + " x " + approach);
      EXPECT_GT(number(table, scenario, approach, "requests_ok"), 100) << describe(result);
      EXPECT_EQ(number(table, scenario, approach, "requests_error"), 0) << describe(result);
    }
  }
}

TEST(PostgresRun, AnUnreachableServerFailsItsRowsWithPostgresMessageAndTheRunGoesOn) {
  const TempDir dir;
  const fs::path file = writeScenarioFile(dir.path(),
                                          "pg-get,get-movies.js,postgres,0,0,5,20,0,2\n"
                                          "plain-get,get-movies.js,,0,0,5,20,0,2\n");
  const std::string nowhere = "host=" + (dir.path() / "no-server").string() + " dbname=movies";
  const CommandResult result =
      runCommand(cliPath(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "callbacks-asio", "--postgres", nowhere},
                 std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  EXPECT_EQ(number(table, "pg-get", "callbacks-asio", "requests_error"), 1);
  EXPECT_GT(number(table, "plain-get", "callbacks-asio", "requests_ok"), 0);
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("PostgreSQL could not be set up: cannot connect to PostgreSQL"),
            std::string::npos)
      << markdown;
}

TEST(PostgresRun, AServerThatStopsDuringARowFailsThatRowWithPostgresMessageAndTheRunGoesOn) {
  postgres::testing::TestCluster server;
  const std::string conninfo = server.cluster.connectionString();
  const auto commits = [&conninfo] {
    return std::stoll(
        postgres::testing::singleValue(conninfo, "SELECT sum(xact_commit) FROM pg_stat_database"));
  };
  const long long before = commits();
  // A read-write row (no answer check after its load, so only the database check can fail it)
  // without the cache (every request a statement).
  const TempDir dir;
  const fs::path file =
      writeScenarioFile(dir.path(),
                        "pg-write,get-movies.js,postgres|no-cache|read-write,0,0,4,,0,8\n"
                        "plain-get,get-movies.js,,0,0,4,,0,2\n");
  // Stops the server once the load has run a few hundred statements on it: in the test phase.
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while (std::chrono::steady_clock::now() < give_up) {
      try {
        if (commits() > before + 500) {
          server.cluster.stop();
          stopped = true;
          return;
        }
      } catch (const std::exception&) {
        // Not up yet, or busy: ask again.
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  });
  const CommandResult result =
      runCommand(cliPath(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "threads-asio", "--postgres", conninfo},
                 std::chrono::minutes(2));
  stopper.join();
  ASSERT_TRUE(stopped) << "the load never reached the server\n" << describe(result);
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  EXPECT_GE(number(table, "pg-write", "threads-asio", "requests_error"), 1);
  EXPECT_GT(number(table, "plain-get", "threads-asio", "requests_ok"), 0);
  EXPECT_EQ(number(table, "plain-get", "threads-asio", "requests_error"), 0);
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("PostgreSQL stopped answering during the row: cannot connect to "
                          "PostgreSQL"),
            std::string::npos)
      << markdown;
}

/// The private clusters benchd made under `tmp` (its TMPDIR).
std::vector<fs::path> clusterFolders(const fs::path& tmp) {
  std::vector<fs::path> folders;
  std::error_code ignored;
  for (const fs::directory_entry& entry : fs::directory_iterator(tmp, ignored)) {
    if (entry.path().filename().string().starts_with("benchd-postgres-")) {
      folders.push_back(entry.path());
    }
  }
  return folders;
}

/// A conninfo for the private cluster in `folder`, from its socket file (.s.PGSQL.<port>).
std::optional<std::string> clusterConninfo(const fs::path& folder) {
  std::error_code ignored;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".s.PGSQL.") && !name.ends_with(".lock")) {
      return "host='" + folder.string() + "' port=" + name.substr(9) +
             " dbname=postgres user=postgres connect_timeout=2";
    }
  }
  return std::nullopt;
}

TEST(PostgresRun, APrivateClusterThatDiesMidRowIsStartedAgainForTheNextRowsAndRemoved) {
  const TempDir dir;
  // The cluster runs as the postgres user when the test is root: it must reach its folder.
  const fs::path tmp = dir.path() / "tmp";
  fs::create_directories(tmp);
  fs::permissions(dir.path(),
                  fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  fs::permissions(tmp, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const fs::path file =
      writeScenarioFile(dir.path(),
                        "pg-write,get-movies.js,postgres|no-cache|read-write,0,0,4,,0,8\n"
                        "pg-get,get-movies.js,postgres,0,0,4,,0,2\n");
  // Kills the postmaster (SIGKILL, as a crash or the OOM killer would) once the load has run a
  // few hundred statements on it: in the first row's test phase.
  std::atomic<bool> killed{false};
  std::thread killer([&] {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    long long before = -1;
    while (std::chrono::steady_clock::now() < give_up && !killed) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      const std::vector<fs::path> folders = clusterFolders(tmp);
      if (folders.size() != 1) {
        continue;
      }
      const std::optional<std::string> conninfo = clusterConninfo(folders.front());
      if (!conninfo) {
        continue;
      }
      try {
        const long long commits = std::stoll(postgres::testing::singleValue(
            *conninfo, "SELECT sum(xact_commit) FROM pg_stat_database"));
        if (before < 0) {
          before = commits;
        } else if (commits > before + 500) {
          pid_t postmaster = 0;
          std::ifstream(folders.front() / "data" / "postmaster.pid") >> postmaster;
          if (postmaster > 0 && ::kill(postmaster, SIGKILL) == 0) {
            killed = true;
          }
        }
      } catch (const std::exception&) {
        // Not up yet, or busy: ask again.
      }
    }
  });
  const CommandResult result =
      runCommand("/usr/bin/env",
                 {"TMPDIR=" + tmp.string(), cliPath(), "run", "--repeat", "1", file.string(), "-o",
                  dir.path().string(), "-a", "callbacks-asio"},
                 std::chrono::minutes(3));
  killer.join();
  ASSERT_TRUE(killed) << "the load never reached the cluster\n" << describe(result);
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, one result failed
  EXPECT_NE(result.err.find("PostgreSQL: the private cluster's server had died ("),
            std::string::npos)
      << describe(result);
  EXPECT_NE(result.err.find("started a new one for the next rows"), std::string::npos)
      << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  EXPECT_GE(number(table, "pg-write", "callbacks-asio", "requests_error"), 1);
  // The next row ran on the new cluster, without an error.
  EXPECT_GT(number(table, "pg-get", "callbacks-asio", "requests_ok"), 0) << describe(result);
  EXPECT_EQ(number(table, "pg-get", "callbacks-asio", "requests_error"), 0) << describe(result);
  // Neither the dead cluster's folder nor the new one's is left behind.
  EXPECT_TRUE(clusterFolders(tmp).empty());
}

TEST(PostgresRun, AGivenServerIsUsedInASchemaOfTheRunsOwnThatIsDroppedAndNothingElseIsTouched) {
  // The user's server: a database with tables of the same names as benchd's in its public
  // schema, and a schema of its own. A run that did not keep to a schema of its own would fail
  // creating its tables, or empty and refill these.
  const postgres::testing::TestCluster server;
  {
    postgres::PgConnection admin(server.cluster.connectionString());
    admin.execute("CREATE DATABASE shop");
  }
  const std::string shop = server.cluster.connectionString("shop");
  {
    postgres::PgConnection user(shop);
    user.execute("CREATE TABLE movie (id integer PRIMARY KEY, title text NOT NULL)");
    user.execute("INSERT INTO movie VALUES (1, 'the user''s own')");
    user.execute("CREATE TABLE movie_director (movie_id integer, name text)");
    user.execute("CREATE SCHEMA accounts");
    user.execute("CREATE TABLE accounts.customer (id integer, name text)");
    user.execute("INSERT INTO accounts.customer VALUES (7, 'Ada')");
  }
  const TempDir dir;
  const fs::path file = writeScenarioFile(
      dir.path(),
      "pg-get,get-movies.js,postgres|no-cache,0,0,5,20,0,2\n"
      "pg-post,get-post-movies-smooth-vus-spike.js,postgres|read-write,0,0,8,,0,4\n");
  const CommandResult result =
      runCommand(cliPath(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "coroutines-asio", "--postgres", shop},
                 std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  // Both rows passed the answer check (the seed's movies, byte for byte) and ran without errors.
  for (const char* scenario : {"pg-get", "pg-post"}) {
    SCOPED_TRACE(scenario);
    EXPECT_GT(number(table, scenario, "coroutines-asio", "requests_ok"), 0) << describe(result);
    EXPECT_EQ(number(table, scenario, "coroutines-asio", "requests_error"), 0) << describe(result);
  }
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("the PostgreSQL server given (a schema of benchd's own)"),
            std::string::npos)
      << markdown;

  using postgres::testing::singleValue;
  EXPECT_EQ(singleValue(shop, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'benchd%'"),
            "0");
  EXPECT_EQ(singleValue(shop, "SELECT string_agg(title, ',') FROM public.movie"), "the user's own");
  EXPECT_EQ(singleValue(shop, "SELECT count(*) FROM public.movie_director"), "0");
  EXPECT_EQ(singleValue(shop, "SELECT name FROM accounts.customer WHERE id = 7"), "Ada");
  EXPECT_EQ(singleValue(shop,
                        "SELECT string_agg(table_schema || '.' || table_name, ',' "
                        "ORDER BY table_schema, table_name) "
                        "FROM information_schema.tables WHERE table_schema NOT IN "
                        "('pg_catalog', 'information_schema')"),
            "accounts.customer,public.movie,public.movie_director");
}

TEST(PostgresRun, AnUnprivilegedUserRunsTheClusterAsItself) {
  // The daemon's service user (benchd.service's DynamicUser, NoNewPrivileges) is not root: the
  // cluster then runs as that user, with no switch of users. `nobody` stands in for it here.
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to become another user; as non-root every run is this case";
  const passwd* nobody = ::getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  const TempDir dir;
  const fs::path file =
      writeScenarioFile(dir.path(), "pg-get,get-movies.js,postgres,0,0,5,20,0,2\n");
  ASSERT_EQ(::chown(dir.path().c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  ASSERT_EQ(::chown(file.c_str(), nobody->pw_uid, nobody->pw_gid), 0);
  // The build tree may lie below a folder only root can enter (CI clones into a mktemp -d
  // folder, mode 0700), so `nobody` runs copies of the programs and the plugin from its own
  // folder, found as a user would point benchd at them: $BENCHD_WORKER, $BENCHD_REPORT and
  // --plugin-dir. Outside the build tree benchd reads its scenarios from the install layout,
  // <prefix>/bin/../share/benchd/scenarios, so the shipped ones are copied there.
  const fs::path programs = dir.path() / "programs";
  fs::create_directories(programs / "plugins");
  fs::create_directories(programs / "bin");
  fs::create_directories(programs / "share" / "benchd");
  fs::copy(fs::path(sourceDir()) / "scenarios", programs / "share" / "benchd" / "scenarios",
           fs::copy_options::recursive);
  fs::copy_file(cliPath(), programs / "bin" / "benchd");
  fs::copy_file(fs::path(cliPath()).parent_path() / "benchd-worker", programs / "benchd-worker");
  // Any plugin will do, so one every build has (fibers-asio is not built under ASan).
  ASSERT_FALSE(approachPlugins().empty());
  const std::string approach = approachPlugins().front();
  fs::copy_file(fs::path(pluginDir()) / (approach + ".so"),
                programs / "plugins" / (approach + ".so"));
  std::vector<std::string> environment = {"HOME=" + dir.path().string(),
                                          "BENCHD_WORKER=" + (programs / "benchd-worker").string()};
  if (!reportPath().empty()) {
    fs::copy_file(reportPath(), programs / "benchd-report");
    environment.push_back("BENCHD_REPORT=" + (programs / "benchd-report").string());
  }
  std::vector<std::string> arguments = {"--reuid=" + std::to_string(nobody->pw_uid),
                                        "--regid=" + std::to_string(nobody->pw_gid),
                                        "--clear-groups",
                                        "--no-new-privs",
                                        "--",
                                        "/usr/bin/env"};
  arguments.insert(arguments.end(), environment.begin(), environment.end());
  arguments.insert(arguments.end(), {(programs / "bin" / "benchd").string(), "run", "--repeat", "1",
                                     file.string(), "-o", dir.path().string(), "-a", approach,
                                     "--plugin-dir", (programs / "plugins").string()});
  const CommandResult result = runCommand("/usr/bin/setpriv", arguments, std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pg" / "results.csv");
  EXPECT_GT(number(table, "pg-get", approach, "requests_ok"), 0) << describe(result);
  EXPECT_EQ(number(table, "pg-get", approach, "requests_error"), 0) << describe(result);
  const std::string markdown = readText(dir.path() / "pg" / "results.md");
  EXPECT_NE(markdown.find("PostgreSQL (all its processes): "), std::string::npos) << markdown;
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
