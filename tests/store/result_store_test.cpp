// The SQLite results store on real files: round trips, WAL readers, migrations, refusals.
#include "temp_dir.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sqlite3.h>
#include <sstream>
#include <string>

namespace benchd::store {
namespace {

/// A store file in a folder that does not exist yet, inside a fresh temporary folder.
class StoreTest : public ::testing::Test {
 protected:
  [[nodiscard]] std::filesystem::path file() const {
    return dir_.path() / "nested" / "benchd.sqlite";
  }

  benchd::testing::TempDir dir_;
};

NewRun sampleRun() {
  NewRun run;
  run.scenario_file = "scenarios/scenarios-ci.csv";
  run.scenario_set = "scenarios-ci";
  run.approaches = {"callbacks-asio", "threads-poco"};
  run.options_text = "Server CPUs: all";
  run.results_dir = "results/scenarios-ci";
  run.started_epoch_millis = 1'764'450'000'000;
  run.system_specs = {{"OS", "Debian GNU/Linux 12"}, {"Kernel", "6.1"}};
  return run;
}

scenario::ScenarioRow sampleRow() {
  scenario::ScenarioRow row;
  row.name = "ci-get-movies";
  row.workload = "get-movies";
  row.server_profiles = {"no-cache", "read-write"};
  row.delay_call_depth = 1;
  row.delay_millis = 100;
  row.connections = 100;
  row.requests_per_second = 200;
  row.warmup_seconds = 1;
  row.test_seconds = 5;
  row.source_line = 3;
  return row;
}

results::SecondRecord sampleSecond(std::uint32_t index) {
  results::SecondRecord second;
  second.load.phase = measurement::PhaseKind::kTest;
  second.load.index = index;
  second.load.start_micros = index * 1'000'000LL;
  second.load.duration_micros = 1'000'000;
  second.load.end_epoch_millis = 1'764'450'001'000 + index * 1000LL;
  second.load.counters.requests_ok = 200 + index;
  second.load.counters.requests_requested = 201 + index;
  second.load.counters.errors[measurement::ErrorClass::kHttp5xx] = 1;
  second.load.counters.bytes_received = 123'456;
  second.load.achieved_requests_per_second = 201.5;
  second.load.latency.count = 201;
  second.load.latency.p50 = 100.25;
  second.load.latency.p99 = 104.5;
  second.load.latency_buckets = {{100'000, 100'063, 150}, {104'000, 104'063, 51}};
  second.system.epoch_millis = second.load.end_epoch_millis;
  second.system.host.cpu_user_percent = 12.5;
  second.system.host.tcp_sockets_in_use = 210;
  second.system.host.cpus = 2;
  second.system.host.ram_total_bytes = 8'000'000'000;
  second.system.host.loopback_rx_bytes = 1'000'000;
  second.system.worker.present = true;
  second.system.worker.threads = 3;
  second.system.worker.rss_bytes = 10'000'000;
  second.system.generator.present = true;
  second.system.generator.cpu_percent = 30.0;
  results::WorkerStats stats;
  stats.epoch_millis = 1'764'450'000'900;
  stats.heap_bytes = 2'000'000;
  stats.counters = {{"requests_served", 1234}, {"live_fibers", 100}};
  second.system.worker_stats = stats;
  return second;
}

TEST_F(StoreTest, CreatesItsFolderAndTheCurrentSchemaInWalMode) {
  const ResultStore store(file());
  EXPECT_EQ(store.schemaVersion(), ResultStore::kSchemaVersion);
  sqlite::SqliteConnection check(file().string());
  sqlite::SqliteStatement mode = check.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.step());
  EXPECT_EQ(mode.columnText(0), "wal");
}

TEST_F(StoreTest, KeepsARunItsRowsResultsAndSeconds) {
  RunId run = 0;
  ResultId result = 0;
  {
    ResultStore store(file());
    run = store.createRun(sampleRun());
    const std::vector<scenario::ScenarioRow> rows = {sampleRow()};
    store.addScenarioRows(run, rows);
    result = store.beginResult(run, 0, "ci-get-movies", "callbacks-asio");
    store.addSecond(result, sampleSecond(0));
    results::SecondRecord with_database = sampleSecond(1);
    with_database.system.database.present = true;
    with_database.system.database.cpu_percent = 42.5;
    with_database.system.database.rss_bytes = 64'000'000;
    with_database.system.database.threads = 7;
    store.addSecond(result, with_database);
    // A second in which not one request was answered (a database stalling every request): no
    // latency buckets at all, stored as an empty blob.
    results::SecondRecord silent = sampleSecond(2);
    silent.load.latency_buckets.clear();
    store.addSecond(result, silent);
    results::SummaryRow summary;
    summary.scenario = "ci-get-movies";
    summary.approach = "callbacks-asio";
    summary.setMetric("requests_ok", 401);
    summary.setMetric("latency_millis_p99", 104.5);
    summary.diagnostics.generator_saturated = true;
    summary.diagnostics.saturation_reason = "cpu at 100 %";
    summary.diagnostics.errors_by_class = "http_5xx=2";
    summary.diagnostics.dropped_arrivals = 7;
    store.finishResult(result, summary);
    const ResultId failed = store.beginResult(run, 0, "ci-get-movies", "threads-poco");
    store.finishResult(failed, results::failedRow("ci-get-movies", "threads-poco", "it died"));
    store.beginResult(run, 0, "ci-get-movies", "never-finished");
    store.finishRun(run, RunStatus::kStopped, "stopped on request", 1'764'450'100'000);
  }
  // A new store on the same file sees everything.
  const ResultStore store(file());
  const std::optional<RunRecord> record = store.findRun(run);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, RunStatus::kStopped);
  EXPECT_EQ(record->error, "stopped on request");
  EXPECT_EQ(record->run.approaches, sampleRun().approaches);
  EXPECT_EQ(record->run.system_specs, sampleRun().system_specs);
  EXPECT_EQ(record->finished_epoch_millis, 1'764'450'100'000);
  EXPECT_EQ(store.listRuns().size(), 1U);

  const std::vector<scenario::ScenarioRow> rows = store.scenarioRows(run);
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].server_profiles, sampleRow().server_profiles);
  EXPECT_EQ(rows[0].requests_per_second, sampleRow().requests_per_second);
  EXPECT_EQ(rows[0].source_line, 3U);

  const std::vector<results::SummaryRow> summaries = store.summaries(run);
  ASSERT_EQ(summaries.size(), 2U) << "the unfinished result is not a result";
  EXPECT_DOUBLE_EQ(summaries[0].metric("requests_ok"), 401);
  EXPECT_DOUBLE_EQ(summaries[0].metric("latency_millis_p99"), 104.5);
  EXPECT_TRUE(summaries[0].diagnostics.generator_saturated);
  EXPECT_EQ(summaries[0].diagnostics.saturation_reason, "cpu at 100 %");
  EXPECT_EQ(summaries[0].diagnostics.errors_by_class, "http_5xx=2");
  EXPECT_EQ(summaries[0].diagnostics.dropped_arrivals, 7U);
  EXPECT_TRUE(summaries[1].failed);
  EXPECT_EQ(summaries[1].failure_reason, "it died");
  EXPECT_DOUBLE_EQ(summaries[1].metric("requests_error"), 1);

  ASSERT_EQ(store.findResult(run, "ci-get-movies", "callbacks-asio"), result);
  const std::vector<results::SecondRecord> seconds =
      store.seconds(result, measurement::PhaseKind::kTest);
  ASSERT_EQ(seconds.size(), 3U);
  EXPECT_TRUE(seconds[2].load.latency_buckets.empty());
  EXPECT_FALSE(seconds[0].system.database.present);
  EXPECT_TRUE(seconds[1].system.database.present);
  EXPECT_DOUBLE_EQ(seconds[1].system.database.cpu_percent, 42.5);
  EXPECT_EQ(seconds[1].system.database.rss_bytes, 64'000'000U);
  EXPECT_EQ(seconds[1].system.database.threads, 7U);
  const results::SecondRecord expected = sampleSecond(1);
  const results::SecondRecord& actual = seconds[1];
  EXPECT_EQ(actual.load.index, 1U);
  EXPECT_EQ(actual.load.counters, expected.load.counters);
  EXPECT_EQ(actual.load.end_epoch_millis, expected.load.end_epoch_millis);
  EXPECT_DOUBLE_EQ(actual.load.latency.p99, 104.5);
  EXPECT_EQ(actual.load.latency_buckets, expected.load.latency_buckets);
  EXPECT_DOUBLE_EQ(actual.system.host.cpu_user_percent, 12.5);
  EXPECT_EQ(actual.system.host.tcp_sockets_in_use, 210U);
  EXPECT_EQ(actual.system.host.cpus, 2U);
  EXPECT_EQ(actual.system.host.ram_total_bytes, 8'000'000'000U);
  EXPECT_EQ(actual.system.worker.rss_bytes, 10'000'000U);
  EXPECT_DOUBLE_EQ(actual.system.generator.cpu_percent, 30.0);
  ASSERT_TRUE(actual.system.worker_stats);
  EXPECT_EQ(actual.system.worker_stats->heap_bytes, 2'000'000);
  EXPECT_EQ(actual.system.worker_stats->counters, expected.system.worker_stats->counters);
  EXPECT_TRUE(store.seconds(result, measurement::PhaseKind::kWarmup).empty());
}

TEST_F(StoreTest, MigratesAVersionOneFileAndKeepsItsRuns) {
  {
    std::filesystem::create_directories(file().parent_path());
    sqlite::SqliteConnection old(file().string());
    migrateSchema(old, 1);
    old.execute(
        "INSERT INTO run (scenario_file, scenario_set, approaches, options, results_dir, "
        "started_epoch_millis, status) VALUES ('old.csv', 'old', 'a,b', '', 'r', 1, "
        "'completed')");
    sqlite::SqliteStatement version = old.prepare("PRAGMA user_version");
    ASSERT_TRUE(version.step());
    ASSERT_EQ(version.columnInt64(0), 1);
  }
  ResultStore store(file());
  EXPECT_EQ(store.schemaVersion(), ResultStore::kSchemaVersion);
  const std::vector<RunRecord> runs = store.listRuns();
  ASSERT_EQ(runs.size(), 1U);
  EXPECT_EQ(runs[0].run.scenario_file, "old.csv");
  EXPECT_EQ(runs[0].status, RunStatus::kCompleted);
  // The new tables work on the migrated file.
  const ResultId result = store.beginResult(runs[0].id, 0, "s", "a");
  store.addSecond(result, sampleSecond(0));
  EXPECT_EQ(store.seconds(result, measurement::PhaseKind::kTest).size(), 1U);
  store.addEvent(runs[0].id, {1, "end", "{}"});
  EXPECT_EQ(store.events(runs[0].id, 0).size(), 1U);
}

/// Inserts one row into `table` with the given values and 0 for every other column (a stored
/// second of an older version, written as that version's SQL allows).
void insertZeroRow(sqlite::SqliteConnection& connection, const std::string& table,
                   const std::map<std::string, std::string>& values) {
  sqlite::SqliteStatement columns = connection.prepare("PRAGMA table_info(" + table + ")");
  std::string names;
  std::string literals;
  while (columns.step()) {
    const std::string name(columns.columnText(1));
    const auto given = values.find(name);
    names += (names.empty() ? "" : ", ") + name;
    literals += (literals.empty() ? "" : ", ") + (given != values.end() ? given->second : "0");
  }
  const std::string sql = "INSERT INTO " + table + " (" + names + ") VALUES (" + literals + ")";
  connection.execute(sql.c_str());
}

TEST_F(StoreTest, MigratesAVersionFourFileWhoseSecondsKnowNoHostSize) {
  {
    std::filesystem::create_directories(file().parent_path());
    sqlite::SqliteConnection old(file().string());
    migrateSchema(old, 4);
    old.execute(
        "INSERT INTO run (id, scenario_file, scenario_set, approaches, options, results_dir, "
        "started_epoch_millis, status) VALUES (3, 'old.csv', 'old', 'a', '', 'r', 1, "
        "'completed')");
    old.execute(
        "INSERT INTO result (id, run_id, row_index, scenario, approach, finished) VALUES "
        "(5, 3, 0, 's', 'a', 1)");
    const std::map<std::string, std::string> key = {
        {"result_id", "5"}, {"phase", "'test'"}, {"latency_buckets", "x''"}};
    insertZeroRow(old, "load_second", key);
    std::map<std::string, std::string> system = key;
    system["host_cpu_user_percent"] = "40";
    system["worker_stats_epoch_millis"] = "NULL";
    system["worker_heap_bytes"] = "NULL";
    system["worker_counters"] = "NULL";
    insertZeroRow(old, "system_second", system);
  }
  ResultStore store(file());
  EXPECT_EQ(store.schemaVersion(), ResultStore::kSchemaVersion);
  const std::vector<results::SecondRecord> seconds =
      store.seconds(5, measurement::PhaseKind::kTest);
  ASSERT_EQ(seconds.size(), 1U);
  EXPECT_DOUBLE_EQ(seconds[0].system.host.cpu_user_percent, 40.0);
  EXPECT_EQ(seconds[0].system.host.cpus, 0U);  // unknown before version 5
  EXPECT_EQ(seconds[0].system.host.ram_total_bytes, 0U);
}

TEST_F(StoreTest, MigratesAVersionThreeFileKeepingItsResultsAndTheirSeries) {
  // Step 4 rebuilds `result` (its unique key gains the repeat): the results, their ids and
  // everything that refers to them must survive, foreign keys and all.
  {
    std::filesystem::create_directories(file().parent_path());
    sqlite::SqliteConnection old(file().string());
    old.execute("PRAGMA foreign_keys = ON");
    migrateSchema(old, 3);
    old.execute(
        "INSERT INTO run (id, scenario_file, scenario_set, approaches, options, results_dir, "
        "started_epoch_millis, status) VALUES (7, 'old.csv', 'old', 'a,b', '', 'r', 1, "
        "'completed')");
    old.execute(
        "INSERT INTO result (id, run_id, row_index, scenario, approach, finished) VALUES "
        "(41, 7, 0, 's', 'a', 1), (42, 7, 0, 's', 'b', 1)");
    old.execute(
        "INSERT INTO result_metric (result_id, name, value) VALUES (41, 'requests_ok', 100), "
        "(42, 'requests_ok', 200)");
  }
  ResultStore store(file());
  EXPECT_EQ(store.schemaVersion(), ResultStore::kSchemaVersion);
  const std::optional<RunRecord> run = store.findRun(7);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->run.repeats, 1U);
  EXPECT_EQ(run->run.winner_rule, results::WinnerRule::kSignificant);
  const std::vector<results::SummaryRow> rows = store.summaries(7);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].approach, "a");
  EXPECT_DOUBLE_EQ(rows[0].metric("requests_ok"), 100.0);
  EXPECT_EQ(rows[0].round, 1U);
  EXPECT_EQ(rows[0].round_position, 0U);  // unknown before version 4
  EXPECT_DOUBLE_EQ(rows[1].metric("requests_ok"), 200.0);
  EXPECT_EQ(store.findResult(7, "s", "b"), std::optional<ResultId>(42));
  // Deleting the run still cascades to the rebuilt table and from it to the metrics.
  EXPECT_TRUE(store.deleteRun(7));
  sqlite::SqliteConnection check(file().string());
  sqlite::SqliteStatement metrics = check.prepare("SELECT count(*) FROM result_metric");
  ASSERT_TRUE(metrics.step());
  EXPECT_EQ(metrics.columnInt64(0), 0);
}

TEST_F(StoreTest, KeepsEveryRepeatOfAPairWithItsRoundPosition) {
  ResultStore store(file());
  NewRun run;
  run.scenario_file = "f.csv";
  run.scenario_set = "f";
  run.approaches = {"a", "a#2"};
  run.repeats = 3;
  run.order_seed = std::numeric_limits<std::uint64_t>::max() - 5;  // above int64's range
  run.winner_rule = results::WinnerRule::kOriginal;
  const RunId id = store.createRun(run);
  for (std::uint32_t repeat = 1; repeat <= 3; ++repeat) {
    for (const std::string approach : {"a", "a#2"}) {
      const ResultId result =
          store.beginResult(id, 0, "s", approach, repeat, approach == "a" ? 2 : 1);
      results::SummaryRow summary;
      summary.scenario = "s";
      summary.approach = approach;
      summary.setMetric("requests_ok", 10.0 * repeat);
      store.finishResult(result, summary);
    }
  }
  const std::optional<RunRecord> record = store.findRun(id);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->run.repeats, 3U);
  EXPECT_EQ(record->run.order_seed, run.order_seed);
  EXPECT_EQ(record->run.winner_rule, results::WinnerRule::kOriginal);
  const std::vector<results::SummaryRow> rows = store.summaries(id);
  ASSERT_EQ(rows.size(), 6U);
  EXPECT_EQ(rows[4].approach, "a");
  EXPECT_EQ(rows[4].round, 3U);
  EXPECT_EQ(rows[4].round_position, 2U);
  EXPECT_DOUBLE_EQ(rows[4].metric("requests_ok"), 30.0);
  EXPECT_NE(store.findResult(id, "s", "a#2", 2), store.findResult(id, "s", "a#2", 3));
  EXPECT_FALSE(store.findResult(id, "s", "a", 4));
  // The same run of a pair cannot be stored twice.
  EXPECT_THROW(store.beginResult(id, 0, "s", "a", 1, 1), std::exception);
}

TEST_F(StoreTest, KeepsACapacityRowsGoalItsSearchAndEachTrialInOrder) {
  RunId run = 0;
  ResultId capacity_result = 0;
  ResultId fixed_result = 0;
  {
    ResultStore store(file());
    run = store.createRun(sampleRun());
    scenario::ScenarioRow capacity_row = sampleRow();
    capacity_row.name = "capacity";
    capacity_row.capacity_goal = scenario::CapacityGoal::parse("p99.9<=1.5s");
    const std::vector<scenario::ScenarioRow> rows = {sampleRow(), capacity_row};
    store.addScenarioRows(run, rows);

    fixed_result = store.beginResult(run, 0, "ci-get-movies", "callbacks-asio");
    results::SummaryRow fixed;
    fixed.scenario = "ci-get-movies";
    fixed.approach = "callbacks-asio";
    store.finishResult(fixed_result, fixed);

    capacity_result = store.beginResult(run, 1, "capacity", "callbacks-asio");
    for (std::uint32_t number = 1; number <= 2; ++number) {
      results::CapacityTrialRecord trial;
      trial.trial = number;
      trial.intended_requests_per_second = 400.0 * number;
      trial.achieved_requests_per_second = 399.5;
      trial.goal_latency_millis = number == 1 ? 3.25 : 812.0;
      trial.latency_p50_millis = 1.5;
      trial.latency_p99_millis = 3.0;
      trial.requests_ok = 799;
      trial.requests_error = number - 1;
      trial.dropped_arrivals = 7;
      trial.generator_cpu_percent = 12.5;
      trial.outcome = number == 1 ? "pass" : "fail";
      trial.confirmation = number == 2;
      trial.reason = number == 1 ? "" : "1 requests failed";
      trial.first_second = 2 * (number - 1);
      trial.last_second = 2 * (number - 1) + 1;
      store.addCapacityTrial(capacity_result, trial);
    }
    results::SummaryRow summary;
    summary.scenario = "capacity";
    summary.approach = "callbacks-asio";
    summary.capacity = results::CapacityResult{"p99.9<=1500ms", 400.0, 800.0, "found", 2, 0.05};
    store.finishResult(capacity_result, summary);
  }
  const ResultStore store(file());
  const std::vector<scenario::ScenarioRow> rows = store.scenarioRows(run);
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_FALSE(rows[0].capacity_goal.has_value());
  ASSERT_TRUE(rows[1].capacity_goal.has_value());
  EXPECT_EQ(rows[1].capacity_goal->text(), "p99.9<=1500ms");

  const std::vector<results::SummaryRow> summaries = store.summaries(run);
  ASSERT_EQ(summaries.size(), 2U);
  EXPECT_FALSE(summaries[0].capacity.has_value());
  ASSERT_TRUE(summaries[1].capacity.has_value());
  const results::CapacityResult& capacity = *summaries[1].capacity;
  EXPECT_EQ(capacity.goal, "p99.9<=1500ms");
  EXPECT_DOUBLE_EQ(capacity.requests_per_second, 400.0);
  EXPECT_DOUBLE_EQ(capacity.failed_at, 800.0);
  EXPECT_EQ(capacity.verdict, "found");
  EXPECT_EQ(capacity.trials, 2U);
  EXPECT_DOUBLE_EQ(capacity.resolution, 0.05);

  EXPECT_TRUE(store.capacityTrials(fixed_result).empty());
  const std::vector<results::CapacityTrialRecord> trials = store.capacityTrials(capacity_result);
  ASSERT_EQ(trials.size(), 2U);
  EXPECT_EQ(trials[0].trial, 1U);
  EXPECT_EQ(trials[0].outcome, "pass");
  EXPECT_FALSE(trials[0].confirmation);
  EXPECT_DOUBLE_EQ(trials[0].goal_latency_millis, 3.25);
  EXPECT_EQ(trials[1].trial, 2U);
  EXPECT_DOUBLE_EQ(trials[1].intended_requests_per_second, 800.0);
  EXPECT_DOUBLE_EQ(trials[1].achieved_requests_per_second, 399.5);
  EXPECT_DOUBLE_EQ(trials[1].latency_p50_millis, 1.5);
  EXPECT_DOUBLE_EQ(trials[1].latency_p99_millis, 3.0);
  EXPECT_EQ(trials[1].requests_ok, 799U);
  EXPECT_EQ(trials[1].requests_error, 1U);
  EXPECT_EQ(trials[1].dropped_arrivals, 7U);
  EXPECT_DOUBLE_EQ(trials[1].generator_cpu_percent, 12.5);
  EXPECT_EQ(trials[1].outcome, "fail");
  EXPECT_TRUE(trials[1].confirmation);
  EXPECT_EQ(trials[1].reason, "1 requests failed");
  EXPECT_EQ(trials[1].first_second, 2U);
  EXPECT_EQ(trials[1].last_second, 3U);
}

TEST_F(StoreTest, RefusesAFileFromANewerBenchd) {
  {
    std::filesystem::create_directories(file().parent_path());
    sqlite::SqliteConnection newer(file().string());
    newer.execute("PRAGMA user_version = 99");
  }
  try {
    const ResultStore store(file());
    FAIL() << "opened a schema-99 file";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find("schema version 99"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(file().string()), std::string::npos);
  }
}

TEST_F(StoreTest, RefusesAFileThatIsNotADatabase) {
  std::filesystem::create_directories(file().parent_path());
  {
    std::FILE* junk = std::fopen(file().c_str(), "w");
    ASSERT_NE(junk, nullptr);
    std::fputs("this is not an SQLite database, just text long enough to have a header\n", junk);
    std::fclose(junk);
  }
  EXPECT_THROW(ResultStore{file()}, StoreError);
}

TEST_F(StoreTest, AReaderInTheMiddleOfAReadDoesNotBlockTheWriter) {
  ResultStore writer(file());
  writer.createRun(sampleRun());
  // A reader holds a read transaction open (a statement mid-iteration) ...
  sqlite3* reader = nullptr;
  ASSERT_EQ(sqlite3_open(file().c_str(), &reader), SQLITE_OK);
  sqlite3_busy_timeout(reader, 0);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(reader, "SELECT id FROM run", -1, &select, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  // ... while the writer writes: with WAL this neither waits nor fails.
  const RunId second = writer.createRun(sampleRun());
  EXPECT_GT(second, 0);
  EXPECT_EQ(writer.listRuns().size(), 2U);
  sqlite3_finalize(select);
  sqlite3_close(reader);
}

TEST_F(StoreTest, QueuedRunsStartAndLeftoversAreMarkedInterrupted) {
  ResultStore store(file());
  const RunId queued = store.createRun(sampleRun(), RunStatus::kQueued);
  EXPECT_EQ(store.findRun(queued)->status, RunStatus::kQueued);
  store.startRun(queued, 42, {{"Kernel", "6.2"}});
  const std::optional<RunRecord> started = store.findRun(queued);
  EXPECT_EQ(started->status, RunStatus::kRunning);
  EXPECT_EQ(started->run.started_epoch_millis, 42);
  EXPECT_EQ(started->run.system_specs,
            (std::vector<std::pair<std::string, std::string>>{{"Kernel", "6.2"}}));
  const RunId waiting = store.createRun(sampleRun(), RunStatus::kQueued);
  const RunId done = store.createRun(sampleRun());
  store.finishRun(done, RunStatus::kCompleted, "", 7);
  // A daemon starting after a crash: what was running or waiting is interrupted, the rest stays.
  EXPECT_EQ(store.markInterruptedRuns(99), 2U);
  EXPECT_EQ(store.findRun(queued)->status, RunStatus::kInterrupted);
  EXPECT_EQ(store.findRun(waiting)->status, RunStatus::kInterrupted);
  EXPECT_EQ(store.findRun(waiting)->finished_epoch_millis, 99);
  EXPECT_EQ(store.findRun(done)->status, RunStatus::kCompleted);
}

TEST_F(StoreTest, AWriterAloneMarksTheRunsOfDeadWritersAndLeavesALiveWritersRunsAlone) {
  RunId left_behind = 0;
  {
    // A writer whose process died mid-run: its run says running, its claim is gone with it.
    ResultStore dead(file());
    EXPECT_EQ(dead.claimWriter(1), 0U);
    left_behind = dead.createRun(sampleRun());
  }
  ResultStore live(file());
  EXPECT_EQ(live.claimWriter(50), 1U);
  EXPECT_EQ(live.findRun(left_behind)->status, RunStatus::kInterrupted);
  EXPECT_EQ(live.findRun(left_behind)->finished_epoch_millis, 50);
  EXPECT_EQ(live.claimWriter(51), 0U);  // once per store object
  const RunId running = live.createRun(sampleRun());

  // A second writer while the first lives (another benchd run on the same store): the first's
  // run is not a leftover.
  ResultStore second(file());
  EXPECT_EQ(second.claimWriter(60), 0U);
  EXPECT_EQ(second.findRun(running)->status, RunStatus::kRunning);
  // A reader that never claims changes nothing either.
  const ResultStore reader(file());
  EXPECT_EQ(reader.findRun(running)->status, RunStatus::kRunning);
}

TEST_F(StoreTest, AWriterThatCannotTakeItsClaimSaysWhy) {
  ResultStore store(file());
  // A folder where the lock file would go: it cannot be opened as a file.
  std::filesystem::path lock_file = file();
  lock_file += ".writers";
  std::filesystem::create_directories(lock_file);
  try {
    store.claimWriter(1);
    ADD_FAILURE() << "a claim on a lock file that is a folder succeeded";
  } catch (const StoreError& error) {
    EXPECT_NE(std::string(error.what()).find(".writers"), std::string::npos) << error.what();
  }
}

TEST_F(StoreTest, AFailedRunsMetricsAreMissingAlsoWhereAnOlderBenchdStoredZeros) {
  ResultStore store(file());
  const RunId run = store.createRun(sampleRun());
  const ResultId failed = store.beginResult(run, 0, "s", "a");
  store.finishResult(failed, results::failedRow("s", "a", "the worker died", 4, 250));
  // As benchd stored a failed run before: every metric 0 but the errors.
  results::SummaryRow old_style;
  old_style.scenario = "s";
  old_style.approach = "b";
  old_style.failed = true;
  old_style.failure_reason = "would not start";
  old_style.setMetric("requests_error", 1.0);
  const ResultId old_failed = store.beginResult(run, 0, "s", "b");
  store.finishResult(old_failed, old_style);
  sqlite::SqliteConnection check(file().string());
  sqlite::SqliteStatement count =
      check.prepare("SELECT count(*) FROM result_metric WHERE result_id = ?");
  count.bind(1, failed);
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.columnInt64(0), 2) << "only the two counts are stored";

  const std::vector<results::SummaryRow> rows = store.summaries(run);
  ASSERT_EQ(rows.size(), 2U);
  for (const results::SummaryRow& row : rows) {
    EXPECT_TRUE(row.failed);
    EXPECT_TRUE(std::isnan(row.metric("latency_millis_p50"))) << row.approach;
    EXPECT_TRUE(std::isnan(row.metric("rss_mib_max"))) << row.approach;
  }
  EXPECT_EQ(rows[0].metric("requests_ok"), 250.0);
  EXPECT_EQ(rows[0].metric("requests_error"), 4.0);
  EXPECT_EQ(rows[1].metric("requests_error"), 1.0);
}

TEST_F(StoreTest, KeepsRunEventsInOrderForResumption) {
  ResultStore store(file());
  const RunId run = store.createRun(sampleRun());
  const RunId other = store.createRun(sampleRun());
  store.addEvent(run, {1, "phase", R"({"step":"starting"})"});
  store.addEvent(other, {1, "phase", "{}"});
  store.addEvent(run, {2, "snapshot", R"({"second":0})"});
  store.addEvent(run, {3, "end", R"({"status":"completed"})"});
  store.addEvent(run, {2, "snapshot", "a repeat is ignored"});

  const std::vector<StoredEvent> all = store.events(run, 0);
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].type, "phase");
  EXPECT_EQ(all[1].data, R"({"second":0})");
  EXPECT_EQ(all[2].sequence, 3U);
  const std::vector<StoredEvent> after_two = store.events(run, 2);
  ASSERT_EQ(after_two.size(), 1U);
  EXPECT_EQ(after_two[0].type, "end");
  EXPECT_TRUE(store.events(run, 3).empty());
  EXPECT_TRUE(store.events(run, std::numeric_limits<std::uint64_t>::max()).empty());
  EXPECT_EQ(store.events(other, 0).size(), 1U);
}

TEST_F(StoreTest, AResumedRunKeepsItsFinishedResultsAndLosesItsUnfinishedOne) {
  ResultStore store(file());
  NewRun run = sampleRun();
  run.request = R"({"version":1})";
  run.started_epoch_millis = 1000;
  const RunId id = store.createRun(run);
  const RunId other = store.createRun(sampleRun());
  results::SummaryRow finished;
  finished.scenario = "s";
  finished.approach = "a";
  finished.setMetric("requests_ok", 7.0);
  store.finishResult(store.beginResult(id, 0, "s", "a", 1, 1), finished);
  const ResultId cut_off = store.beginResult(id, 0, "s", "b", 1, 2);
  store.addSecond(cut_off, sampleSecond(0));
  const ResultId others = store.beginResult(other, 0, "s", "b", 1, 1);
  store.addEvent(id, {1, "phase", "{}"});
  store.addEvent(id, {2, "end", R"({"status":"stopped"})"});
  store.finishRun(id, RunStatus::kStopped, "stopped on request", 2000);

  EXPECT_EQ(store.lastEventSequence(id), 2U);
  EXPECT_EQ(store.lastEventSequence(other), 0U);
  EXPECT_EQ(store.deleteUnfinishedResults(id), 1U);
  EXPECT_FALSE(store.findResult(id, "s", "b", 1));
  EXPECT_TRUE(store.seconds(cut_off, measurement::PhaseKind::kTest).empty());
  EXPECT_EQ(store.findResult(other, "s", "b", 1), others) << "another run's results stay";
  // The cut-off run can be begun again under the same key.
  EXPECT_NO_THROW(static_cast<void>(store.beginResult(id, 0, "s", "b", 1, 2)));

  ASSERT_TRUE(store.resumeRun(id, RunStatus::kRunning, 5000));
  std::optional<RunRecord> record = store.findRun(id);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->status, RunStatus::kRunning);
  EXPECT_EQ(record->error, "");
  EXPECT_EQ(record->finished_epoch_millis, 0);
  EXPECT_EQ(record->run.started_epoch_millis, 1000) << "its first start stays";
  EXPECT_EQ(record->run.resumes, 1U);
  EXPECT_EQ(record->run.resumed_epoch_millis, 5000);
  EXPECT_EQ(record->run.request, R"({"version":1})");
  ASSERT_EQ(store.summaries(id).size(), 1U);
  EXPECT_DOUBLE_EQ(store.summaries(id)[0].metric("requests_ok"), 7.0);
  ASSERT_TRUE(store.resumeRun(id, RunStatus::kQueued, 6000));
  record = store.findRun(id);
  ASSERT_TRUE(record);
  EXPECT_EQ(record->run.resumes, 2U);
  EXPECT_EQ(record->status, RunStatus::kQueued);
  EXPECT_FALSE(store.resumeRun(999, RunStatus::kRunning, 1));
}

TEST_F(StoreTest, ARunKeepsTheNoiseThresholdsItIsDecidedWith) {
  ResultStore store(file());
  results::NoiseThresholds thresholds = results::shippedNoiseThresholds();
  thresholds.share[*results::metricIndex("latency_millis_p99")] = 0.125;
  thresholds.source = "an A/A run";
  std::ostringstream text;
  results::writeNoiseThresholds(text, thresholds);
  NewRun run = sampleRun();
  run.noise_thresholds = text.str();
  const RunId id = store.createRun(run);
  const results::NoiseThresholds read = noiseThresholdsOf(store.findRun(id)->run);
  EXPECT_DOUBLE_EQ(read.of("latency_millis_p99"), 0.125);
  EXPECT_EQ(read.source, "an A/A run");

  // None recorded (a run of an older benchd): the shipped ones; unreadable: the same, saying so.
  EXPECT_EQ(noiseThresholdsOf(sampleRun()).share, results::shippedNoiseThresholds().share);
  run.noise_thresholds = "garbage";
  const results::NoiseThresholds fallback = noiseThresholdsOf(run);
  EXPECT_EQ(fallback.share, results::shippedNoiseThresholds().share);
  EXPECT_NE(fallback.source.find("the run's own could not be read"), std::string::npos)
      << fallback.source;
}

TEST_F(StoreTest, ListsRunsNewestFirstByPageAndStatus) {
  ResultStore store(file());
  std::vector<RunId> ids;
  ids.reserve(5);
  for (int index = 0; index < 5; ++index) {
    ids.push_back(store.createRun(sampleRun()));
  }
  store.finishRun(ids[1], RunStatus::kCompleted, "", 1);
  store.finishRun(ids[3], RunStatus::kCompleted, "", 1);

  EXPECT_EQ(store.countRuns(std::nullopt), 5U);
  EXPECT_EQ(store.countRuns(RunStatus::kCompleted), 2U);
  EXPECT_EQ(store.countRuns(RunStatus::kFailed), 0U);
  RunQuery page;
  page.limit = 2;
  std::vector<RunRecord> first = store.listRuns(page);
  ASSERT_EQ(first.size(), 2U);
  EXPECT_EQ(first[0].id, ids[4]);
  EXPECT_EQ(first[1].id, ids[3]);
  page.offset = 4;
  std::vector<RunRecord> last = store.listRuns(page);
  ASSERT_EQ(last.size(), 1U);
  EXPECT_EQ(last[0].id, ids[0]);
  RunQuery completed;
  completed.status = RunStatus::kCompleted;
  std::vector<RunRecord> done = store.listRuns(completed);
  ASSERT_EQ(done.size(), 2U);
  EXPECT_EQ(done[0].id, ids[3]);
  EXPECT_EQ(done[1].id, ids[1]);
  completed.offset = 2;
  EXPECT_TRUE(store.listRuns(completed).empty());
}

TEST_F(StoreTest, DeletingARunRemovesEverythingStoredForIt) {
  ResultStore store(file());
  const RunId run = store.createRun(sampleRun());
  const RunId kept = store.createRun(sampleRun());
  store.addScenarioRows(run, std::vector<scenario::ScenarioRow>{sampleRow()});
  const ResultId result = store.beginResult(run, 0, "ci-get-movies", "callbacks-asio");
  store.addSecond(result, sampleSecond(0));
  results::SummaryRow row;
  row.scenario = "ci-get-movies";
  row.approach = "callbacks-asio";
  store.finishResult(result, row);
  store.addEvent(run, {1, "end", "{}"});
  store.setResultsDir(kept, "/state/results/run-2");
  EXPECT_EQ(store.findRun(kept)->run.results_dir, "/state/results/run-2");

  EXPECT_TRUE(store.deleteRun(run));
  EXPECT_FALSE(store.deleteRun(run));
  EXPECT_FALSE(store.findRun(run));
  EXPECT_TRUE(store.findRun(kept));
  EXPECT_TRUE(store.summaries(run).empty());
  EXPECT_TRUE(store.events(run, 0).empty());
  EXPECT_TRUE(store.scenarioRows(run).empty());
  // Nothing of it is left in any table, series included.
  sqlite::SqliteConnection reader(file().string());
  for (const char* table : {"run_spec", "scenario_row", "result", "result_metric",
                            "result_diagnostic", "load_second", "system_second", "run_event"}) {
    sqlite::SqliteStatement count = reader.prepare(std::string("SELECT count(*) FROM ") + table);
    ASSERT_TRUE(count.step());
    EXPECT_EQ(count.columnInt64(0), table == std::string("run_spec") ? 2 : 0) << table;
  }
}

TEST_F(StoreTest, NeverGivesARunIdTwiceEvenAfterDeletingTheNewest) {
  RunId newest = 0;
  {
    ResultStore store(file());
    EXPECT_EQ(store.createRun(sampleRun()), 1);
    newest = store.createRun(sampleRun());
    ASSERT_TRUE(store.deleteRun(newest));
  }
  ResultStore reopened(file());
  EXPECT_GT(reopened.createRun(sampleRun()), newest);
}

TEST(RunStatusNames, RoundTrip) {
  for (const RunStatus status : {RunStatus::kRunning, RunStatus::kCompleted, RunStatus::kStopped,
                                 RunStatus::kFailed, RunStatus::kQueued, RunStatus::kInterrupted}) {
    EXPECT_EQ(runStatusFromName(runStatusName(status)), status);
  }
  EXPECT_FALSE(runStatusFromName("exploded"));
}

}  // namespace
}  // namespace benchd::store
