// `benchd run` as a real process: real workers, real plugins, real SQLite, real files.
#include "command_runner.hpp"
#include "runner_test_support.hpp"
#include "store_count.hpp"

#include <benchd/results/metric_format.hpp>
#include <benchd/results/noise_thresholds.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/runner/cpu_list.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace benchd::runner::testing {
namespace {

using benchd::testing::CommandResult;
using benchd::testing::runCommand;

std::string readFile(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path writeFile(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

double number(const results::ResultsTable& table, const results::ResultsRow& row,
              std::string_view metric) {
  return table.number(row, metric).value_or(-1.0);
}

const results::ResultsRow* findRow(const results::ResultsTable& table, const std::string& scenario,
                                   const std::string& approach) {
  for (const results::ResultsRow& row : table.rows()) {
    if (row.scenario == scenario && row.approach == approach) {
      return &row;
    }
  }
  return nullptr;
}

std::string describe(const CommandResult& result) {
  return "exit " + std::to_string(result.exit_code) + "\nstdout:\n" + result.out + "\nstderr:\n" +
         result.err;
}

/// scenarios-ci.csv over every built approach plugin, to completion: the main job end to end.
TEST(BenchdRun, RunsTheCiScenariosOverEveryPluginToCompletion) {
  const TempDir dir;
  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", "scenarios-ci.csv", "-o", dir.path().string(), "-C"},
                 std::chrono::minutes(10));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const fs::path results_dir = dir.path() / "scenarios-ci";
  const results::ResultsTable table = results::readResultsCsvFile(results_dir / "results.csv");
  ASSERT_EQ(table.metricNames().size(), results::kMetricCount);
  for (std::size_t index = 0; index < results::kMetricCount; ++index) {
    EXPECT_EQ(table.metricNames()[index], results::kMetricNames[index]);
  }
  const std::vector<std::string> plugins = approachPluginFiles();
  ASSERT_EQ(table.rows().size(), 4 * plugins.size()) << readFile(results_dir / "results.csv");
  double host_cpu_max = 0.0;
  for (const results::ResultsRow& row : table.rows()) {
    SCOPED_TRACE(row.scenario + " x " + row.approach);
    EXPECT_GT(number(table, row, "requests_ok"), 0);
    EXPECT_EQ(number(table, row, "requests_error"), 0);
    EXPECT_GT(number(table, row, "sockets_max"), 0);
    EXPECT_GT(number(table, row, "os_threads_max"), 0);
    EXPECT_GT(number(table, row, "rss_mib_max"), 0);
    EXPECT_GT(number(table, row, "heap_mib_max"), 0);
    // The host's CPU is sampled for every row, but a quiet second on a quiet host is a true 0
    // (clock ticks are 10 ms): only the run as a whole must show load.
    EXPECT_GE(number(table, row, "cpu_use_percent_max"), 0);
    host_cpu_max = std::max(host_cpu_max, number(table, row, "cpu_use_percent_max"));
    EXPECT_GT(number(table, row, "cpu_millis_per_request"), 0);
    EXPECT_GT(number(table, row, "network_kib_per_req_avg"), 0);
    if (row.scenario != "ci-get-time-no-delay") {
      // Every other ci row waits 100 ms at the innermost call.
      EXPECT_GE(number(table, row, "latency_millis_p50"), 100);
      EXPECT_LT(number(table, row, "latency_millis_p50"), 150);
    }
    EXPECT_TRUE(fs::exists(results_dir / row.scenario / (row.approach + "-load.csv")));
    EXPECT_TRUE(fs::exists(results_dir / row.scenario / (row.approach + "-system.csv")));
  }
  EXPECT_GT(host_cpu_max, 0);
  if (::testing::Test::HasFailure()) {
    // benchd's own account names the cause of a failed row.
    std::cout << describe(result) << "\n";
  }
  // Fixed-rate rows reach their rate: 500 req/s for 5 s, 200 req/s for 5 s.
  for (const std::string& plugin : plugins) {
    const std::string approach = fs::path(plugin).stem().string();
    const results::ResultsRow* fast = findRow(table, "ci-get-time-no-delay", approach);
    ASSERT_NE(fast, nullptr) << approach;
    EXPECT_NEAR(number(table, *fast, "requests_per_second_p50"), 500, 50) << approach;
    const results::ResultsRow* nested = findRow(table, "ci-get-movies-call-depth-1", approach);
    ASSERT_NE(nested, nullptr) << approach;
    EXPECT_NEAR(number(table, *nested, "requests_per_second_p50"), 200, 20) << approach;
  }
  const std::string markdown = readFile(results_dir / "results.md");
  EXPECT_NE(markdown.find("# scenarios-ci"), std::string::npos);
  EXPECT_NE(markdown.find("## System Specs"), std::string::npos);
  EXPECT_NE(markdown.find("| Kernel |"), std::string::npos);
  EXPECT_NE(markdown.find("## Result Overview"), std::string::npos);
  EXPECT_NE(markdown.find("### ci-sharp-spikes-get-post-movies"), std::string::npos);
  EXPECT_NE(result.out.find("winners over"), std::string::npos) << describe(result);

  const store::ResultStore store(dir.path() / "benchd.sqlite");
  const std::vector<store::RunRecord> runs = store.listRuns();
  ASSERT_EQ(runs.size(), 1U);
  EXPECT_EQ(runs[0].status, store::RunStatus::kCompleted);
  EXPECT_EQ(store.summaries(runs[0].id).size(), table.rows().size());
  const auto result_id =
      store.findResult(runs[0].id, "ci-get-movies-call-depth-1", "callbacks-asio");
  ASSERT_TRUE(result_id);
  const auto seconds = store.seconds(*result_id, measurement::PhaseKind::kTest);
  ASSERT_GE(seconds.size(), 5U);
  EXPECT_TRUE(seconds[1].system.worker.present);
  EXPECT_TRUE(seconds[1].system.worker_stats.has_value());
  EXPECT_EQ(store.seconds(*result_id, measurement::PhaseKind::kWarmup).size(), 1U);
}

/// A plugin whose worker dies gets a failed row with the cause, a profile nothing implements
/// gets a failed row naming it, and the rest of the run completes.
TEST(BenchdRun, FailsWhatCannotRunAndCarriesOn) {
  const TempDir dir;
  const fs::path file = writeFile(dir.path() / "mixed.csv",
                                  scenarioCsv("tiny-get-time,get-time.js,,0,0,10,50,0,2\n"
                                              "needs-mysql,get-movies.js,mysql,0,0,10,50,0,2\n"));
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
       testPluginFolder("crash-on-request").string(), "-a", "crash-on-request,callbacks-asio"},
      std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  // The crash, and the profile nothing implements for both approaches.
  EXPECT_NE(result.out.find(": 4 results (3 failed: results.md says why)"), std::string::npos)
      << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "mixed" / "results.csv");
  ASSERT_EQ(table.rows().size(), 4U) << describe(result);
  const results::ResultsRow* crashed = findRow(table, "tiny-get-time", "crash-on-request");
  ASSERT_NE(crashed, nullptr);
  EXPECT_GE(number(table, *crashed, "requests_error"), 1);
  EXPECT_EQ(number(table, *crashed, "requests_ok"), 0);
  // Missing, never 0: a failure must not read as the best latency.
  EXPECT_TRUE(std::isnan(number(table, *crashed, "latency_millis_p50")));
  const results::ResultsRow* healthy = findRow(table, "tiny-get-time", "callbacks-asio");
  ASSERT_NE(healthy, nullptr);
  EXPECT_GT(number(table, *healthy, "requests_ok"), 0);
  EXPECT_EQ(number(table, *healthy, "requests_error"), 0);
  for (const char* approach : {"crash-on-request", "callbacks-asio"}) {
    const results::ResultsRow* mysql = findRow(table, "needs-mysql", approach);
    ASSERT_NE(mysql, nullptr) << approach;
    EXPECT_EQ(number(table, *mysql, "requests_error"), 1);
  }
  const std::string markdown = readFile(dir.path() / "mixed" / "results.md");
  EXPECT_NE(markdown.find("SIGABRT"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("server profile 'mysql'"), std::string::npos) << markdown;
  EXPECT_NE(result.err.find("FAILED"), std::string::npos) << describe(result);
}

/// A client profile a plugin does not implement skips that pair: no result, no failure, named in
/// the plan, the progress and results.md; the plugins that implement it run it with that client.
TEST(BenchdRun, SkipsThePairsWhosePluginLacksTheRowsClientAndRunsTheRest) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "clients.csv",
                scenarioCsv("beast-depth-1,get-time.js,client-beast,1,0,10,50,0,2\n"
                            "curl-depth-1,get-time.js,client-curl,1,0,10,50,0,2\n"));
  const std::vector<std::string> run = {
      "run", "--repeat",          "1",  file.string(),
      "-o",  dir.path().string(), "-a", "callbacks-asio,threads-poco"};
  std::vector<std::string> plan = run;
  plan.push_back("--plan");
  const CommandResult planned = runCommand(benchdExecutable().string(), plan);
  ASSERT_EQ(planned.exit_code, 0) << describe(planned);
  EXPECT_NE(planned.out.find("= 3 runs (the skipped pairs below left out)"), std::string::npos)
      << describe(planned);
  EXPECT_NE(planned.out.find("     skipped: threads-poco does not implement client-beast (its "
                             "clients: client-poco, client-curl, client-httplib)"),
            std::string::npos)
      << describe(planned);

  const CommandResult result =
      runCommand(benchdExecutable().string(), run, std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_NE(result.out.find(": 3 results"), std::string::npos) << describe(result);
  EXPECT_NE(result.err.find("skipped in beast-depth-1: threads-poco does not implement "
                            "client-beast"),
            std::string::npos)
      << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "clients" / "results.csv");
  EXPECT_EQ(table.rows().size(), 3U) << describe(result);
  EXPECT_EQ(findRow(table, "beast-depth-1", "threads-poco"), nullptr);
  for (const auto& [scenario, approach] :
       std::vector<std::pair<std::string, std::string>>{{"beast-depth-1", "callbacks-asio"},
                                                        {"curl-depth-1", "callbacks-asio"},
                                                        {"curl-depth-1", "threads-poco"}}) {
    const results::ResultsRow* row = findRow(table, scenario, approach);
    ASSERT_NE(row, nullptr) << scenario << " " << approach;
    EXPECT_GT(number(table, *row, "requests_ok"), 0) << scenario << " " << approach;
    EXPECT_EQ(number(table, *row, "requests_error"), 0) << scenario << " " << approach;
  }
  const std::string markdown = readFile(dir.path() / "clients" / "results.md");
  EXPECT_NE(markdown.find("#### threads-poco (not run)\n\nthreads-poco does not implement "
                          "client-beast"),
            std::string::npos)
      << markdown;
}

/// --repeat in rounds over variants: an A/A pair (--aa) and a plugin with an option it does not
/// know. Every run is stored and in results-runs.csv, results.csv holds one median row per pair,
/// each round runs every approach once, and the seed given is the seed recorded.
TEST(BenchdRun, RepeatsInRoundsOverApproachVariants) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "repeat.csv", scenarioCsv("time,get-time.js,,0,0,10,50,0,1\n"));
  const CommandResult aa = runCommand(
      benchdExecutable().string(),
      {"run", file.string(), "-o", (dir.path() / "aa").string(), "--aa", "callbacks-asio",
       "--repeat", "3", "--seed", "12345", "--store", (dir.path() / "runs.sqlite").string()},
      std::chrono::minutes(3));
  ASSERT_EQ(aa.exit_code, 0) << describe(aa);
  EXPECT_NE(aa.err.find("1 rows x 2 approaches x 3 repeats"), std::string::npos) << describe(aa);
  EXPECT_NE(aa.err.find("round 3/3"), std::string::npos) << describe(aa);
  // 3 runs a side cannot be tested: the grid says its leads are unconfirmed.
  EXPECT_NE(aa.out.find("unconfirmed leads"), std::string::npos) << describe(aa);
  const fs::path folder = dir.path() / "aa" / "repeat";
  const results::ResultsTable runs = results::readResultsCsvFile(folder / "results-runs.csv");
  ASSERT_EQ(runs.rows().size(), 6U);
  for (const results::ResultsRow& row : runs.rows()) {
    EXPECT_EQ(number(runs, row, "requests_error"), 0) << row.approach;  // the copy answers too
  }
  const results::ResultsTable medians = results::readResultsCsvFile(folder / "results.csv");
  ASSERT_EQ(medians.rows().size(), 2U);
  EXPECT_NE(findRow(medians, "time", "callbacks-asio#2"), nullptr);

  store::ResultStore store(dir.path() / "runs.sqlite");
  const std::vector<store::RunRecord> recorded = store.listRuns();
  ASSERT_EQ(recorded.size(), 1U);
  EXPECT_EQ(recorded[0].run.repeats, 3U);
  EXPECT_EQ(recorded[0].run.order_seed, 12345U);
  EXPECT_EQ(recorded[0].run.approaches,
            (std::vector<std::string>{"callbacks-asio", "callbacks-asio#2"}));
  const std::vector<results::SummaryRow> stored = store.summaries(recorded[0].id);
  ASSERT_EQ(stored.size(), 6U);
  for (std::size_t round = 0; round < 3; ++round) {
    // Each round: both approaches once, at positions 1 and 2, in the round's own order.
    const results::SummaryRow& first = stored[2 * round];
    const results::SummaryRow& second = stored[2 * round + 1];
    EXPECT_EQ(first.round, round + 1);
    EXPECT_EQ(second.round, round + 1);
    EXPECT_EQ(first.round_position, 1U);
    EXPECT_EQ(second.round_position, 2U);
    EXPECT_NE(first.approach, second.approach);
  }
  const std::string markdown = readFile(folder / "results.md");
  EXPECT_NE(markdown.find("seed 12345"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("Run 3 of 3"), std::string::npos) << markdown;

  // The run decides with the shipped thresholds and says so beside its results; as an A/A
  // check it measures its own, which `benchd winners --measure-noise` measures alike.
  const results::NoiseThresholds used =
      results::readNoiseThresholdsFile(folder / "noise-thresholds.csv");
  EXPECT_EQ(used.source, results::shippedNoiseThresholds().source);
  EXPECT_EQ(store::noiseThresholdsOf(recorded[0].run).share, used.share);
  const results::NoiseThresholds measured =
      results::readNoiseThresholdsFile(folder / "measured-noise-thresholds.csv");
  EXPECT_NE(measured.source.find("measured by the A/A run 1 (callbacks-asio against "
                                 "callbacks-asio#2, 3 rounds of repeat.csv)"),
            std::string::npos)
      << measured.source;
  for (const double share : measured.share) {
    EXPECT_GE(share, results::kLowestNoiseShare);
  }
  EXPECT_NE(aa.err.find("noise thresholds this A/A run measured: " +
                        (folder / "measured-noise-thresholds.csv").string()),
            std::string::npos)
      << describe(aa);
  const CommandResult remeasured = runCommand(
      benchdExecutable().string(),
      {"winners", folder.string(), "--measure-noise", "callbacks-asio,callbacks-asio#2"});
  ASSERT_EQ(remeasured.exit_code, 0) << describe(remeasured);
  std::istringstream remeasured_text(remeasured.out);
  EXPECT_EQ(results::readNoiseThresholds(remeasured_text, "stdout").share, measured.share);
  const fs::path bad_thresholds =
      writeFile(dir.path() / "bad.csv", "metric,threshold_percent\nrss_mib_avg,200\n");
  const CommandResult refused =
      runCommand(benchdExecutable().string(),
                 {"winners", folder.string(), "--thresholds", bad_thresholds.string()});
  EXPECT_EQ(refused.exit_code, 1) << describe(refused);
  EXPECT_NE(refused.err.find(bad_thresholds.string() +
                             ":2: rss_mib_avg: expected a threshold in percent from 0 to 100"),
            std::string::npos)
      << describe(refused);

  // A variant with an option its plugin refuses fails its rows with the plugin's reason; the
  // plugin as installed beside it runs.
  const CommandResult option =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", (dir.path() / "option").string(),
                  "-a", "callbacks-asio,callbacks-asio[no_such_option=1]"},
                 std::chrono::minutes(3));
  ASSERT_EQ(option.exit_code, 3) << describe(option);  // completed, a result failed
  const std::string option_markdown = readFile(dir.path() / "option" / "repeat" / "results.md");
  EXPECT_NE(option_markdown.find("callbacks-asio[no_such_option=1]: **failed**"), std::string::npos)
      << option_markdown;
  EXPECT_NE(option_markdown.find("no_such_option"), std::string::npos) << option_markdown;

  // Bad spellings are usage errors (exit 2) naming the place.
  const CommandResult bad = runCommand(benchdExecutable().string(),
                                       {"run", file.string(), "--plan", "-a", "callbacks-asio[x]"},
                                       std::chrono::minutes(1));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("at character 17: expected '=' after option 'x'"), std::string::npos)
      << describe(bad);
  const CommandResult both =
      runCommand(benchdExecutable().string(),
                 {"run", file.string(), "--plan", "--aa", "callbacks-asio", "-a", "threads-asio"},
                 std::chrono::minutes(1));
  EXPECT_EQ(both.exit_code, 2) << describe(both);
  EXPECT_NE(both.err.find("--aa: an A/A check runs one approach against itself"), std::string::npos)
      << describe(both);
}

/// A fast but wrong approach must not win: its answers are checked before any load.
TEST(BenchdRun, FailsAnApproachThatAnswersWrongly) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "answers.csv", scenarioCsv("time,get-time.js,,0,0,10,50,0,2\n"
                                                        "movies,get-movies.js,,1,10,10,50,0,2\n"));
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
       testPluginFolder("wrong-answers").string(), "-a", "wrong-answers,coroutines-asio"},
      std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "answers" / "results.csv");
  for (const char* scenario : {"time", "movies"}) {
    const results::ResultsRow* wrong = findRow(table, scenario, "wrong-answers");
    ASSERT_NE(wrong, nullptr) << scenario;
    EXPECT_EQ(number(table, *wrong, "requests_ok"), 0) << scenario;
    EXPECT_GE(number(table, *wrong, "requests_error"), 1) << scenario;
    const results::ResultsRow* right = findRow(table, scenario, "coroutines-asio");
    ASSERT_NE(right, nullptr) << scenario;
    EXPECT_GT(number(table, *right, "requests_ok"), 0) << scenario;
  }
  const std::string markdown = readFile(dir.path() / "answers" / "results.md");
  EXPECT_NE(markdown.find("wrong answer: GET /wrong-answers/epoch-millis?delayCallDepth=0&"
                          "delayInMillis=0: expected the epoch milliseconds as an integer, "
                          "got '[]'"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("expected the movies of 'Allen'"), std::string::npos) << markdown;
}

/// An answer nested deeper than any real one is wrong, and reading it does not take benchd down.
TEST(BenchdRun, FailsAnApproachWhoseAnswersNestTooDeep) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "deep.csv", scenarioCsv("movies,get-movies.js,,0,0,10,50,0,2\n"));
  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
                  testPluginFolder("deep-answers").string(), "-a", "deep-answers"},
                 std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "deep" / "results.csv");
  const results::ResultsRow* deep = findRow(table, "movies", "deep-answers");
  ASSERT_NE(deep, nullptr);
  EXPECT_GE(number(table, *deep, "requests_error"), 1);
  EXPECT_NE(readFile(dir.path() / "deep" / "results.md").find("wrong answer"), std::string::npos);
}

/// A worker that stops answering fails its row with the cause; one that then ignores SIGTERM is
/// killed, and the run goes on to the next approach.
TEST(BenchdRun, FailsAHungWorkerKillsItAndGoesOn) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "hung.csv", scenarioCsv("time,get-time.js,,0,0,10,50,0,1\n"));
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
       testPluginFolder("hang-on-request").string(), "-a", "hang-on-request,callbacks-asio"},
      std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "hung" / "results.csv");
  const results::ResultsRow* hung = findRow(table, "time", "hang-on-request");
  ASSERT_NE(hung, nullptr);
  EXPECT_GE(number(table, *hung, "requests_error"), 1);
  const results::ResultsRow* next = findRow(table, "time", "callbacks-asio");
  ASSERT_NE(next, nullptr);
  EXPECT_GT(number(table, *next, "requests_ok"), 0);
  EXPECT_NE(readFile(dir.path() / "hung" / "results.md").find("no answer within"),
            std::string::npos);
}

TEST(BenchdRun, FailsAWorkerThatNeverBecomesHealthy) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "health.csv", scenarioCsv("time,get-time.js,,0,0,10,50,0,2\n"));
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "--plugin-dir",
       testPluginFolder("never-healthy").string(), "-a", "never-healthy", "--health-timeout", "2"},
      std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 3) << describe(result);  // completed, some results failed
  const std::string markdown = readFile(dir.path() / "health" / "results.md");
  EXPECT_NE(markdown.find("the worker was not healthy within 2 s (GET /health answered 503)"),
            std::string::npos)
      << markdown;
}

/// Pinning is applied (the worker's affinity is checked by ChildProcess's own tests) and
/// reported in results.md.
TEST(BenchdRun, PinsServerAndGeneratorToDisjointCpus) {
  const std::vector<unsigned> cpus = allowedCpus();
  if (cpus.size() < 2) {
    GTEST_SKIP() << "needs two CPUs";
  }
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "pinned.csv", scenarioCsv("time,get-time.js,,0,0,10,50,0,2\n"));
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a", "callbacks-asio",
       "--server-cpus", std::to_string(cpus[1]), "--generator-cpus", std::to_string(cpus[0])},
      std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const std::string markdown = readFile(dir.path() / "pinned" / "results.md");
  EXPECT_NE(markdown.find("Server CPUs: " + std::to_string(cpus[1]) +
                          "; load generator CPUs: " + std::to_string(cpus[0]) + " (1 thread)"),
            std::string::npos)
      << markdown;
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "pinned" / "results.csv");
  ASSERT_EQ(table.rows().size(), 1U);
  EXPECT_GT(number(table, table.rows()[0], "requests_ok"), 0);
}

TEST(BenchdRun, RefusesAPluginInAWorldWritableFolder) {
  const TempDir dir;
  const fs::path open_folder = dir.subfolder("open", fs::perms::all);
  copyInto(testPluginFile("crash-on-request"), open_folder, "crash-on-request.so");
  const CommandResult result =
      runCommand(benchdExecutable().string(), {"run", "scenarios-ci.csv", "--plan", "--plugin-dir",
                                               open_folder.string(), "-a", "crash-on-request"});
  EXPECT_EQ(result.exit_code, 1) << describe(result);
  EXPECT_NE(result.err.find("crash-on-request"), std::string::npos) << describe(result);
  EXPECT_NE(result.err.find("writable"), std::string::npos) << describe(result);
}

/// The original's files load unchanged: a header with a missing comma, '#' rows, blank rows,
/// CRLF line ends, ".js" names, empty rates and profiles nothing here implements.
TEST(BenchdRun, PlansAFileWithEveryQuirkOfTheOriginalFormat) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "quirks.csv",
                "scenario,k6Config,serverProfile delayCallDepth,delayInMillis,connections,"
                "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\r\n"
                "# a commented-out row,get-time.js,,0,0,1,1,0,1\r\n"
                "\r\n"
                "smoke,get-time.js,,1,100,5,5,0,15\r\n"
                "   \r\n"
                "spike,get-post-movies-smooth-vus-spike.js,,0,100,20000,,0,180\r\n"
                "pg,get-movies.js,postgres|no-cache,0,100,10,10,10,300\r\n");
  const CommandResult result =
      runCommand(benchdExecutable().string(), {"run", file.string(), "--plan"});
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_NE(result.out.find("3 rows x"), std::string::npos) << describe(result);
  EXPECT_NE(result.out.find("1. smoke: get-time"), std::string::npos) << describe(result);
  EXPECT_NE(result.out.find("2. spike: get-post-movies-smooth-vus-spike"), std::string::npos);
  EXPECT_NE(result.out.find("peak 20000 connections"), std::string::npos) << describe(result);
  // Where the plan would find PostgreSQL: this machine has postgresql-15 (install-deps.sh).
  EXPECT_NE(result.out.find("needs PostgreSQL: found, a private PostgreSQL 15 cluster"),
            std::string::npos)
      << describe(result);
  EXPECT_NE(result.out.find("Database of the postgres rows: "), std::string::npos);
  EXPECT_NE(result.out.find("total: about"), std::string::npos);
  EXPECT_NE(result.out.find("Server CPUs: "), std::string::npos) << "the plan names the CPUs";
  EXPECT_FALSE(fs::exists(dir.path() / "results")) << "--plan must run nothing";
}

TEST(BenchdRun, NamesTheLineOfABadScenarioFile) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "bad.csv", scenarioCsv("ok,get-time.js,,0,0,5,5,0,1\n"
                                                    "bad,get-time.js,,0,0,zero,5,0,1\n"));
  const CommandResult result =
      runCommand(benchdExecutable().string(), {"run", file.string(), "--plan"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("bad.csv:3: column 6 (connections)"), std::string::npos)
      << describe(result);
  const CommandResult missing =
      runCommand(benchdExecutable().string(), {"run", "no-such-file", "--plan"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("scenarios-quick.csv"), std::string::npos) << describe(missing);
  const CommandResult unknown =
      runCommand(benchdExecutable().string(), {"run", "--plan", "-a", "no-such-approach"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no-such-approach"), std::string::npos) << describe(unknown);
  EXPECT_NE(unknown.err.find("('benchd plugins' lists them)"), std::string::npos)
      << describe(unknown);
  const CommandResult overlap =
      runCommand(benchdExecutable().string(),
                 {"run", "--plan", "--server-cpus", "0", "--generator-cpus", "0"});
  EXPECT_EQ(overlap.exit_code, 2);
  EXPECT_NE(overlap.err.find("share CPU 0"), std::string::npos) << describe(overlap);
}

/// The runner's refusals in `benchd run`'s words: a bad option value is a usage error that
/// names the option, a scenario file that is not there an error with the command line's remedy.
TEST(BenchdRun, NamesTheOptionARefusalIsAbout) {
  const auto benchd = [](const std::vector<std::string>& arguments) {
    return runCommand(benchdExecutable().string(), arguments);
  };
  const CommandResult missing = benchd({"run", "no-such-file", "--plan"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_TRUE(missing.err.starts_with("benchd run: error: no scenario file 'no-such-file' in "))
      << describe(missing);
  EXPECT_NE(missing.err.find(" (there: "), std::string::npos) << describe(missing);
  EXPECT_TRUE(missing.err.ends_with("); give a path to use a file elsewhere\n"))
      << describe(missing);

  const CommandResult no_test = benchd({"run", "--plan", "-t", "0"});
  EXPECT_EQ(no_test.exit_code, 2);
  EXPECT_TRUE(no_test.err.starts_with("benchd run: -t: the test phase needs at least 1 second\n"))
      << describe(no_test);

  const CommandResult unreachable = benchd({"run", "--plan", "--server-cpus", "1023"});
  EXPECT_EQ(unreachable.exit_code, 2);
  EXPECT_TRUE(unreachable.err.starts_with(
      "benchd run: --server-cpus: CPU 1023 is not available to this process (available: "))
      << describe(unreachable);

  const CommandResult shared_with_list =
      benchd({"run", "--plan", "--cpus", "shared", "--server-cpus", "0"});
  EXPECT_EQ(shared_with_list.exit_code, 2);
  EXPECT_TRUE(shared_with_list.err.starts_with(
      "benchd run: --cpus: 'shared' leaves both unpinned; it takes no CPU list\n"))
      << describe(shared_with_list);
  // The count is checked once, by the runner, for the command line and the API alike.
  const CommandResult no_runs = benchd({"run", "--plan", "--repeat", "0"});
  EXPECT_EQ(no_runs.exit_code, 2);
  EXPECT_TRUE(no_runs.err.starts_with(
      "benchd run: --repeat: expected a number of runs from 1 to 1000, got 0\n"))
      << describe(no_runs);
  const CommandResult bad_cpus = benchd({"run", "--plan", "--cpus", "sideways"});
  EXPECT_EQ(bad_cpus.exit_code, 2);
  EXPECT_TRUE(bad_cpus.err.starts_with(
      "benchd run: --cpus: expected 'split' or 'shared', got 'sideways'\n"))
      << describe(bad_cpus);
  const CommandResult bad_rule = benchd({"run", "--plan", "--winners", "best"});
  EXPECT_EQ(bad_rule.exit_code, 2);
  EXPECT_TRUE(bad_rule.err.starts_with(
      "benchd run: --winners: expected 'significant' or 'original', got 'best'\n"))
      << describe(bad_rule);

  const CommandResult overlap =
      benchd({"run", "--plan", "--server-cpus", "0", "--generator-cpus", "0"});
  EXPECT_EQ(overlap.exit_code, 2);
  EXPECT_TRUE(overlap.err.starts_with(
      "benchd run: --generator-cpus: the server and the load generator share CPU 0; pinning is "
      "for keeping the two apart, give them disjoint sets\n"))
      << describe(overlap);
}

/// `benchd run` of a short row then a 120 s one against callbacks-asio, sent `signal` once the
/// long row's test phase has stored a few seconds (a state, never a fixed time).
CommandResult runUntilTheLongRowThenSignal(const TempDir& dir, int signal) {
  const fs::path file =
      writeFile(dir.path() / "long.csv", scenarioCsv("first,get-time.js,,0,0,10,50,0,2\n"
                                                     "long,get-time.js,,0,0,10,50,0,120\n"));
  std::atomic<pid_t> pid{-1};
  std::thread stopper([&] {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (std::chrono::steady_clock::now() < deadline &&
           benchd::testing::countInStore(dir.path() / "benchd.sqlite",
                                         "SELECT count(*) FROM load_second WHERE phase = 'test'") <
               4) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid.load() > 0) {
      ::kill(pid.load(), signal);
    }
  });
  CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a", "callbacks-asio"},
      std::chrono::minutes(3), [&pid](pid_t started) { pid.store(started); });
  stopper.join();
  return result;
}

TEST(BenchdRun, StopsCleanlyOnSigint) {
  const TempDir dir;
  const CommandResult result = runUntilTheLongRowThenSignal(dir, SIGINT);
  EXPECT_EQ(result.exit_code, 130) << describe(result);
  EXPECT_NE(result.out.find("stopped"), std::string::npos) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "long" / "results.csv");
  ASSERT_EQ(table.rows().size(), 1U) << "only the finished row is a result";
  EXPECT_EQ(table.rows()[0].scenario, "first");
  EXPECT_NE(readFile(dir.path() / "long" / "results.md").find("stopped before it finished"),
            std::string::npos);
  const store::ResultStore store(dir.path() / "benchd.sqlite");
  ASSERT_EQ(store.listRuns().size(), 1U);
  EXPECT_EQ(store.listRuns()[0].status, store::RunStatus::kStopped);
}

TEST(BenchdRun, TheNextRunMarksARunWhoseProcessWasKilledInterrupted) {
  const TempDir dir;
  const CommandResult killed = runUntilTheLongRowThenSignal(dir, SIGKILL);
  EXPECT_EQ(killed.exit_code, 128 + SIGKILL) << describe(killed);
  {
    const store::ResultStore store(dir.path() / "benchd.sqlite");
    ASSERT_EQ(store.listRuns().size(), 1U);
    EXPECT_EQ(store.listRuns()[0].status, store::RunStatus::kRunning) << "nobody marked it yet";
  }
  const fs::path file =
      writeFile(dir.path() / "short.csv", scenarioCsv("short,get-time.js,,0,0,10,50,0,1\n"));
  const CommandResult next = runCommand(benchdExecutable().string(),
                                        {"run", "--repeat", "1", file.string(), "-o",
                                         dir.path().string(), "-a", "callbacks-asio", "--quiet"});
  EXPECT_EQ(next.exit_code, 0) << describe(next);
  EXPECT_NE(next.err.find("1 earlier run(s) in " + (dir.path() / "benchd.sqlite").string() +
                          " ended with their process before they finished; marked interrupted"),
            std::string::npos)
      << describe(next);
  const store::ResultStore store(dir.path() / "benchd.sqlite");
  const std::vector<store::RunRecord> runs = store.listRuns();
  ASSERT_EQ(runs.size(), 2U);
  EXPECT_EQ(runs[0].status, store::RunStatus::kInterrupted);
  EXPECT_EQ(runs[1].status, store::RunStatus::kCompleted);
  // What the killed run measured before it died stays.
  EXPECT_GE(store.summaries(runs[0].id).size(), 1U);
}

/// --memory-cap: a row far above the cap for a thread per connection (2,000 connections held by
/// threads-asio take about 50 MiB) ends as the source study's "OOM - did not complete", with
/// the cap and the peak, and the run goes on to its end (exit 3: a result failed); the same row
/// uncapped completes. Every result records the cap. A variant's memory_cap caps that approach
/// alone, and the plugin never sees the key.
TEST(BenchdRun, AWorkerAboveItsMemoryCapEndsItsRowAsOomAndTheRowUncappedCompletes) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "many.csv", scenarioCsv("many,get-movies.js,,0,100,2000,2000,0,2\n"));
  const CommandResult capped =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", (dir.path() / "capped").string(),
                  "-a", "threads-asio", "--memory-cap", "16M", "--quiet"},
                 std::chrono::minutes(3));
  EXPECT_EQ(capped.exit_code, 3) << describe(capped);
  const std::string report = readFile(dir.path() / "capped" / "many" / "results.md");
  EXPECT_NE(report.find("OOM — did not complete (cap 16 MiB, peak "), std::string::npos) << report;
  EXPECT_NE(report.find("Memory cap: 16 MiB per worker, cgroup v"), std::string::npos) << report;
  EXPECT_EQ(benchd::testing::countInStore(dir.path() / "capped" / "benchd.sqlite",
                                          "SELECT count(*) FROM result_diagnostic WHERE name = "
                                          "'memory_cap_bytes' AND value = '16777216'"),
            1);

  const CommandResult variant =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", (dir.path() / "variant").string(),
                  "-a", "threads-asio[memory_cap=16M],threads-asio", "--quiet"},
                 std::chrono::minutes(3));
  EXPECT_EQ(variant.exit_code, 3) << describe(variant);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "variant" / "many" / "results.csv");
  ASSERT_EQ(table.rows().size(), 2U);
  for (const results::ResultsRow& row : table.rows()) {
    if (row.approach == "threads-asio") {
      EXPECT_GT(number(table, row, "requests_ok"), 0);
      EXPECT_EQ(number(table, row, "requests_error"), 0);
      EXPECT_GT(number(table, row, "rss_mib_max"), 16.0) << "the cap was far below";
    } else {
      EXPECT_EQ(row.approach, "threads-asio[memory_cap=16M]");
      EXPECT_GT(number(table, row, "requests_error"), 0);
    }
  }
  const std::string variant_report = readFile(dir.path() / "variant" / "many" / "results.md");
  EXPECT_NE(variant_report.find("the worker was ended at its memory cap: OOM — did not complete"),
            std::string::npos)
      << variant_report;
  // The grid names it apart from its cells, as the source study's table did.
  EXPECT_NE(variant_report.find("- many × threads-asio[memory_cap=16M]: **OOM — did not "
                                "complete** in 1 of 1 run (cap 16 MiB, peak "),
            std::string::npos)
      << variant_report;
}

/// A variant's `threads` is its worker's --threads (callbacks-asio: its event loops, one OS
/// thread each) and never reaches the plugin, which would refuse an option it does not know.
TEST(BenchdRun, AVariantsThreadsIsItsWorkersThreadCount) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "loops.csv", scenarioCsv("loops,get-time.js,,0,0,4,100,0,2\n"));
  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "callbacks-asio[threads=1],callbacks-asio[threads=3]", "--quiet"},
                 std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "loops" / "results.csv");
  ASSERT_EQ(table.rows().size(), 2U);
  std::map<std::string, double> threads;
  for (const results::ResultsRow& row : table.rows()) {
    EXPECT_GT(number(table, row, "requests_ok"), 0) << row.approach;
    threads[row.approach] = number(table, row, "os_threads_max");
  }
  EXPECT_EQ(threads.at("callbacks-asio[threads=3]"), threads.at("callbacks-asio[threads=1]") + 2);

  const CommandResult refused =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "callbacks-asio[threads=0]", "--quiet"});
  EXPECT_EQ(refused.exit_code, 1) << describe(refused);
  EXPECT_NE(refused.err.find("approach 'callbacks-asio[threads=0]': threads: expected an integer "
                             "from 1 to 1024, got '0'"),
            std::string::npos)
      << describe(refused);
}

/// A `tls` row end to end: the run makes a certificate, the worker serves HTTP/1.1 over TLS,
/// and the health probe, the answer check, the nested call (depth 1) and the load generator all
/// speak TLS; a plain generator or worker would fail every request. An event-loop plugin (Asio's
/// TLS stream) and threads-poco (OpenSSL under Poco's socket, Poco's client for the nested call)
/// both serve it. (A plugin without `tls` is skipped as any row's unserved profile is: see the
/// HTTP/2 rows below.)
TEST(BenchdRun, ATlsRowRunsOverTlsOnAsioAndOnPoco) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "tls.csv", scenarioCsv("tls-depth-1,get-time.js,tls,1,0,4,100,0,2\n"));
  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "coroutines-asio,threads-poco"},
                 std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "tls" / "results.csv");
  ASSERT_EQ(table.rows().size(), 2U) << describe(result);
  for (const std::string approach : {"coroutines-asio", "threads-poco"}) {
    const results::ResultsRow* row = findRow(table, "tls-depth-1", approach);
    ASSERT_NE(row, nullptr) << approach << describe(result);
    EXPECT_GT(number(table, *row, "requests_ok"), 50) << approach << describe(result);
    EXPECT_EQ(number(table, *row, "requests_error"), 0) << approach << describe(result);
  }
}

/// HTTP/2 rows end to end: `h2` (over TLS, a depth-1 nested call) and `h2c`, each with 2
/// connections of 10 streams (the eleventh column), on an event-loop plugin (coroutines-asio) and
/// a thread plugin (threads-asio: a thread per stream). One request of 100 ms at a time per
/// connection, as HTTP/1.1 would, gives at most 2 x 20 = 40 in the 2 s; 20 at once give about
/// 400. The bound, three times the serial most, leaves room for a slow build (under
/// AddressSanitizer a TLS row with its nested call adds tens of milliseconds to every request) and
/// still fails if a connection's streams are served one after another. The plan names the
/// streams. (A plugin without HTTP/2 is skipped as any row's unserved profile is.)
TEST(BenchdRun, Http2RowsRunTheirStreamsOnAnEventLoopAndAThreadPlugin) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "h2.csv", scenarioCsv("over-tls,get-time.js,h2,1,100,2,,0,2,,10\n"
                                                   "in-clear,get-time.js,h2c,0,100,2,,0,2,,10\n"));
  const CommandResult plan =
      runCommand(benchdExecutable().string(),
                 {"run", file.string(), "--plan", "-a", "coroutines-asio,threads-asio"});
  ASSERT_EQ(plan.exit_code, 0) << describe(plan);
  EXPECT_NE(plan.out.find("over-tls: get-time, 2 connections x 10 streams"), std::string::npos)
      << describe(plan);

  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a",
                  "coroutines-asio,threads-asio"},
                 std::chrono::minutes(3));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "h2" / "results.csv");
  for (const std::string scenario : {"over-tls", "in-clear"}) {
    for (const std::string approach : {"coroutines-asio", "threads-asio"}) {
      const results::ResultsRow* row = findRow(table, scenario, approach);
      ASSERT_NE(row, nullptr) << scenario << " " << approach << describe(result);
      constexpr double kServedOneAtATimeMost = 2 * (2000.0 / 100);
      EXPECT_GT(number(table, *row, "requests_ok"), 3 * kServedOneAtATimeMost)
          << scenario << " " << approach << describe(result);
      EXPECT_EQ(number(table, *row, "requests_error"), 0)
          << scenario << " " << approach << describe(result);
    }
  }
}

/// A row's requestCount (the 12th column, h2load's -n): the test phase sends exactly that many
/// requests and ends when they have, long before its duration, over HTTP/1.1 and over h2c with
/// streams alike; the plan and results.md say so.
TEST(BenchdRun, ARequestCountRowSendsExactlyItsCountAndEndsThen) {
  const TempDir dir;
  const fs::path file = writeFile(dir.path() / "counted.csv",
                                  scenarioCsv("h1-counted,get-time.js,,0,0,2,,0,60,,,300\n"
                                              "h2c-counted,get-time.js,h2c,0,0,2,,0,60,,5,400\n"));
  const CommandResult plan = runCommand(benchdExecutable().string(),
                                        {"run", file.string(), "--plan", "-a", "coroutines-asio"});
  ASSERT_EQ(plan.exit_code, 0) << describe(plan);
  EXPECT_NE(plan.out.find("test 60 s at most, 300 requests"), std::string::npos) << describe(plan);

  const auto started = std::chrono::steady_clock::now();
  const CommandResult result = runCommand(
      benchdExecutable().string(),
      {"run", "--repeat", "1", file.string(), "-o", dir.path().string(), "-a", "coroutines-asio"},
      std::chrono::minutes(2));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  // Two 60 s rows would take two minutes; the counts end them in seconds (generous bound).
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(60))
      << describe(result);
  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "counted" / "results.csv");
  for (const auto& [scenario, count] :
       {std::pair<std::string, double>{"h1-counted", 300}, {"h2c-counted", 400}}) {
    const auto found = std::find_if(
        table.rows().begin(), table.rows().end(),
        [&scenario](const results::ResultsRow& row) { return row.scenario == scenario; });
    ASSERT_NE(found, table.rows().end()) << scenario << describe(result);
    EXPECT_EQ(number(table, *found, "requests_ok") + number(table, *found, "requests_error"), count)
        << scenario << describe(result);
    EXPECT_EQ(number(table, *found, "requests_error"), 0) << scenario << describe(result);
  }
  const std::string markdown = readFile(dir.path() / "counted" / "results.md");
  EXPECT_NE(markdown.find("| 2 × 5 streams |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 60 at most, 400 requests |"), std::string::npos) << markdown;
}

/// A capacity row against a worker whose capacity is known: benchd.max_rate=600 serves at most
/// 600 calls per second whatever the CPU, so 600 req/s at depth 0, and an arrival rate above it
/// queues until p99 breaks the 50 ms goal. The search (from 200 req/s, to 10 %) must bracket
/// 600 within its resolution, store every trial and its seconds, and report the rate in
/// results.csv's extra column, results.md and the progress lines. A fixed row in the same run
/// keeps its ordinary result.
TEST(BenchdRun, ACapacitySearchFindsAKnownCapacityWithinItsResolution) {
  const TempDir dir;
  const fs::path file =
      writeFile(dir.path() / "capacity.csv",
                "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
                "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds,capacityGoal\n"
                "fixed,get-time.js,,0,0,10,50,0,1,\n"
                "held,get-time-arrival-rate.js,,0,0,50,200,1,2,p99<=50ms\n");
  const std::string approach = "callbacks-asio[benchd.max_rate=600]";
  const CommandResult result =
      runCommand(benchdExecutable().string(),
                 {"run", "--repeat", "1", file.string(), "-o", (dir.path() / "out").string(), "-a",
                  approach, "--capacity-resolution", "10"},
                 std::chrono::minutes(4));
  ASSERT_EQ(result.exit_code, 0) << describe(result);
  EXPECT_NE(result.err.find("trial 1: 200 req/s asked"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("(confirming)"), std::string::npos) << result.err;

  const results::ResultsTable table =
      results::readResultsCsvFile(dir.path() / "out" / "capacity" / "results.csv");
  ASSERT_TRUE(table.metricIndex(results::kCapacityMetric).has_value());
  ASSERT_EQ(table.rows().size(), 2U);
  const results::ResultsRow& fixed = table.rows()[0];
  const results::ResultsRow& held = table.rows()[1];
  EXPECT_TRUE(std::isnan(number(table, fixed, results::kCapacityMetric)));
  EXPECT_GT(number(table, fixed, "requests_ok"), 0);
  const double found = number(table, held, results::kCapacityMetric);
  EXPECT_GE(found, 600.0 / 1.1 - 1.0) << describe(result);
  EXPECT_LE(found, 600.0 * 1.05) << describe(result);
  EXPECT_EQ(number(table, held, "requests_error"), 0);

  const fs::path store = dir.path() / "out" / "benchd.sqlite";
  const auto diagnostic = [&store](const std::string& name) {
    return benchd::testing::numberInStore(
        store, "SELECT CAST(value AS REAL) FROM result_diagnostic WHERE name = '" + name + "'");
  };
  const double failed_at = diagnostic("capacity_failed_at");
  EXPECT_GT(failed_at, found);
  EXPECT_LE((failed_at - found) / found, 0.1 + 1e-9);
  const int trials = static_cast<int>(diagnostic("capacity_trials"));
  EXPECT_GE(trials, 4);  // up from 200 to above 600, then down into the bracket
  EXPECT_EQ(benchd::testing::countInStore(store, "SELECT count(*) FROM capacity_trial"), trials);
  EXPECT_EQ(benchd::testing::countInStore(
                store,
                "SELECT count(*) FROM capacity_trial WHERE outcome = 'pass' AND "
                "confirmation = 1 AND intended_requests_per_second = " +
                    std::to_string(static_cast<long>(found))),
            1);
  // Every trial's test seconds are stored under the one result, numbered on.
  EXPECT_EQ(benchd::testing::countInStore(
                store,
                "SELECT count(*) FROM load_second WHERE phase = 'test' AND result_id = "
                "(SELECT result_id FROM capacity_trial LIMIT 1)"),
            2 * trials);
  EXPECT_EQ(benchd::testing::countInStore(store, "SELECT max(last_second) + 1 FROM capacity_trial"),
            2 * trials);

  const std::string report = readFile(dir.path() / "out" / "capacity" / "results.md");
  EXPECT_NE(report.find("Capacity searches (the capacityGoal column"), std::string::npos);
  EXPECT_NE(report.find("| " + approach + " | " + results::formatMetricValue(found) + " |"),
            std::string::npos)
      << report;
}

TEST(BenchdRun, ABadMemoryCapIsAUsageErrorNamingTheOption) {
  const CommandResult result =
      runCommand(benchdExecutable().string(), {"run", "--plan", "--memory-cap", "512MB"});
  EXPECT_EQ(result.exit_code, 2) << describe(result);
  EXPECT_NE(result.err.find("--memory-cap: memory cap '512MB': unknown unit 'MB'"),
            std::string::npos)
      << describe(result);
}

}  // namespace
}  // namespace benchd::runner::testing
