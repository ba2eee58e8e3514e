#include "shipped_data.hpp"
#include "temp_dir.hpp"

#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/scenario_file_error.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace benchd::scenario {
namespace {

using benchd::testing::TempDir;
using testing::shippedWorkloads;

constexpr const char* kHeader =
    "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,requestsPerSecond,"
    "warmupDurationInSeconds,testDurationInSeconds\n";

std::vector<ScenarioRow> parse(const std::string& text) {
  return parseScenarioText(text, "scenarios/x.csv", shippedWorkloads());
}

/// what() of the error parsing `text` as "scenarios/x.csv" throws, or "" when it parses.
std::string errorOf(const std::string& text) {
  try {
    parse(text);
  } catch (const ScenarioFileError& error) {
    return error.what();
  }
  return "";
}

/// The error for a file of the header plus `rows`.
std::string rowError(const std::string& rows) {
  return errorOf(kHeader + rows);
}

TEST(ScenarioFile, ReadsEveryColumn) {
  const auto rows = parse(std::string(kHeader) +
                          "smoke,get-movies.js,postgres|no-cache,1,100,10,20,2,6\n"
                          "spike,get-post-movies-smooth-vus-spike,,0,0,20000,,0,180\n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].name, "smoke");
  EXPECT_EQ(rows[0].workload, "get-movies");
  EXPECT_EQ(rows[0].server_profiles, (std::vector<std::string>{"postgres", "no-cache"}));
  EXPECT_EQ(rows[0].delay_call_depth, 1U);
  EXPECT_EQ(rows[0].delay_millis, 100U);
  EXPECT_EQ(rows[0].connections, 10U);
  EXPECT_EQ(rows[0].requests_per_second, 20U);
  EXPECT_EQ(rows[0].warmup_seconds, 2U);
  EXPECT_EQ(rows[0].test_seconds, 6U);
  EXPECT_EQ(rows[0].source_line, 2U);

  EXPECT_EQ(rows[1].workload, "get-post-movies-smooth-vus-spike");
  EXPECT_TRUE(rows[1].server_profiles.empty());
  EXPECT_EQ(rows[1].delay_millis, 0U);
  EXPECT_FALSE(rows[1].requests_per_second.has_value());
  EXPECT_EQ(rows[1].warmup_seconds, 0U);
  EXPECT_EQ(rows[1].source_line, 3U);
}

TEST(ScenarioFile, WorkloadNameWithAndWithoutJsSuffixIsTheSame) {
  const auto rows = parse(std::string(kHeader) + "a,get-movies.js,,0,0,1,1,0,1\n" +
                          "b,get-movies,,0,0,1,1,0,1\n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_EQ(rows[0].workload, rows[1].workload);
}

TEST(ScenarioFile, SkipsTheHeaderWhateverItSays) {
  // The original's soaktest file lacks a comma in its header; others say serverProfile.
  const auto rows = parse(
      "scenario,k6Config,serverProfiledelayCallDepth,delayInMillis,connections,requestsPerSecond,"
      "warmupDurationInSeconds,testDurationInSeconds\n"
      "a,get-time.js,,0,0,1,1,0,1\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].name, "a");
  EXPECT_EQ(parse("whatever\na,get-time.js,,0,0,1,1,0,1\n").size(), 1U);
}

TEST(ScenarioFile, SkipsTheFirstLineEvenWhenItLooksLikeData) {
  const auto rows = parse("first,get-time.js,,0,0,1,1,0,1\nsecond,get-time.js,,0,0,1,1,0,1\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].name, "second");
}

TEST(ScenarioFile, SkipsBlankAndCommentLines) {
  const auto rows = parse(std::string(kHeader) +
                          "\n"
                          "   \n"
                          "#postgres-todo,get-movies.js,postgres,0,100,10,10,10,120\n"
                          "  # indented comment\n"
                          "a,get-time.js,,0,0,1,1,0,1\n"
                          "\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].source_line, 6U);
}

TEST(ScenarioFile, AcceptsCrLfLineEndingsAndBlanksAroundFields) {
  const auto rows =
      parse(std::string("header\r\n") + " a , get-time.js , postgres | no-cache ,0,0,1, ,0,1\r\n");
  ASSERT_EQ(rows.size(), 1U);
  EXPECT_EQ(rows[0].name, "a");
  EXPECT_EQ(rows[0].server_profiles, (std::vector<std::string>{"postgres", "no-cache"}));
  EXPECT_FALSE(rows[0].requests_per_second.has_value());
  EXPECT_EQ(rows[0].test_seconds, 1U);
}

TEST(ScenarioFile, AcceptsAFileWithoutFinalNewline) {
  EXPECT_EQ(parse(std::string(kHeader) + "a,get-time.js,,0,0,1,1,0,1").size(), 1U);
}

TEST(ScenarioFile, WarmupMayBeZeroButTestDurationMayNot) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1\n"), "");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,0\n"),
            "scenarios/x.csv:2: column 9 (testDurationInSeconds): expected whole seconds from 1 "
            "to 86400, got '0'");
}

// The phase limit every other way of naming a phase has too (scenario/phase_limits.hpp).
TEST(ScenarioFile, PhasesLastAtMostADay) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,86400,86400\n"), "");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,86401,1\n"),
            "scenarios/x.csv:2: column 8 (warmupDurationInSeconds): expected whole seconds "
            "from 0 to 86400, got '86401'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,90000\n"),
            "scenarios/x.csv:2: column 9 (testDurationInSeconds): expected whole seconds from 1 "
            "to 86400, got '90000'");
}

TEST(ScenarioFileErrors, WrongColumnCount) {
  EXPECT_EQ(rowError("a,get-time.js,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: expected 9 comma-separated columns (or 10 with a capacityGoal, "
            "11 with streamsPerConnection, 12 with requestCount), got 8 (an older 8-column file? "
            "add an empty serverProfiles column after k6Config)");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1,,,,\n"),
            "scenarios/x.csv:2: expected 9 comma-separated columns (or 10 with a capacityGoal, "
            "11 with streamsPerConnection, 12 with requestCount), got 13");
}

TEST(ScenarioFile, AnEleventhColumnGivesHttp2RowsTheirStreams) {
  const auto rows = parse(std::string(kHeader) +
                          "plain,get-time.js,,0,0,1,1,0,1,,\n"
                          "tls-h2,get-time.js,h2,0,0,50,,0,10,,20\n"
                          "clear-h2,get-time.js,h2c,0,0,50,,0,10,,\n"
                          "nine,get-time.js,h2,0,0,50,,0,10\n");
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[0].streams_per_connection, 1U);
  EXPECT_EQ(rows[1].streams_per_connection, 20U);
  EXPECT_EQ(rows[1].server_profiles, std::vector<std::string>{"h2"});
  EXPECT_EQ(rows[2].streams_per_connection, 1U);
  EXPECT_EQ(rows[3].streams_per_connection, 1U);
}

TEST(ScenarioFileErrors, StreamsNeedHttp2AndAPositiveCount) {
  EXPECT_EQ(rowError("a,get-time.js,tls,0,0,1,1,0,1,,20\n"),
            "scenarios/x.csv:2: column 11 (streamsPerConnection): 20 streams per connection need "
            "the h2 or h2c profile (HTTP/1.1 has no streams)");
  EXPECT_EQ(rowError("a,get-time.js,h2,0,0,1,1,0,1,,0\n"),
            "scenarios/x.csv:2: column 11 (streamsPerConnection): expected an integer from 1 to "
            "1000, or nothing for 1, got '0'");
  EXPECT_EQ(rowError("a,get-time.js,h2c,0,0,1,1,0,1,,1001\n"),
            "scenarios/x.csv:2: column 11 (streamsPerConnection): expected an integer from 1 to "
            "1000, or nothing for 1, got '1001'");
  EXPECT_EQ(rowError("a,get-time.js,tls,0,0,1,1,0,1,,1\n"), "");
}

TEST(ScenarioFile, ATwelfthColumnCountsTheTestPhasesRequests) {
  const auto rows = parse(std::string(kHeader) +
                          "counted,get-time.js,h2,0,0,50,,5,30,,20,100000\n"
                          "timed,get-time.js,h2,0,0,50,,5,30,,20,\n"
                          "plain-counted,get-time.js,,0,0,2,,0,10,,,500\n"
                          "eleven,get-time.js,h2,0,0,50,,5,30,,20\n");
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[0].request_count, 100000U);
  EXPECT_EQ(rows[0].streams_per_connection, 20U);
  EXPECT_EQ(rows[1].request_count, std::nullopt);
  EXPECT_EQ(rows[2].request_count, 500U);
  EXPECT_EQ(rows[2].streams_per_connection, 1U);
  EXPECT_EQ(rows[3].request_count, std::nullopt);
}

TEST(ScenarioFileErrors, ARequestCountIsPositiveAndNotACapacitySearch) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1,,,0\n"),
            "scenarios/x.csv:2: column 12 (requestCount): expected a positive integer, or "
            "nothing for a timed test phase, got '0'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1,,,many\n"),
            "scenarios/x.csv:2: column 12 (requestCount): expected a positive integer, or "
            "nothing for a timed test phase, got 'many'");
  EXPECT_EQ(rowError("a,get-time-arrival-rate.js,,0,0,50,200,0,2,p99<=50ms,,1000\n"),
            "scenarios/x.csv:2: column 12 (requestCount): a request count and a capacityGoal "
            "exclude each other (a capacity search runs timed trials); leave one of the two "
            "columns empty");
}

TEST(ScenarioFile, AnEmptyTenthColumnIsAFixedLoadAndAGoalMakesACapacityRow) {
  const auto rows = parse(std::string(kHeader) +
                          "fixed,get-time.js,,0,0,1,1,0,1,\n"
                          "capacity,get-time-arrival-rate.js,,1,0,50,200,1,2, p99.9<=1.5s \n");
  ASSERT_EQ(rows.size(), 2U);
  EXPECT_FALSE(rows[0].capacity_goal.has_value());
  ASSERT_TRUE(rows[1].capacity_goal.has_value());
  EXPECT_DOUBLE_EQ(rows[1].capacity_goal->percentile, 99.9);
  EXPECT_DOUBLE_EQ(rows[1].capacity_goal->bound_millis, 1500.0);
  EXPECT_EQ(rows[1].requests_per_second, 200U);  // the first trial's rate
}

TEST(ScenarioFileErrors, ACapacityGoalNamesItsColumnAndNeedsAConstantArrivalRate) {
  EXPECT_EQ(rowError("a,get-time-arrival-rate.js,,0,0,50,200,1,2,p99<50ms\n"),
            "scenarios/x.csv:2: column 10 (capacityGoal): latency goal 'p99<50ms': expected "
            "'<=' after the percentile (expected e.g. p99<=50ms, p99.9<=200ms or p50<=1.5s)");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,50,,1,2,p99<=50ms\n"),
            "scenarios/x.csv:2: column 10 (capacityGoal): a capacity search needs a "
            "constant-arrival-rate workload (e.g. get-time-arrival-rate), got 'get-time'");
}

TEST(ScenarioFileErrors, NotANumber) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1\n"
                     "\n"
                     "b,get-time.js,,0,0,abc,1,0,1\n"),
            "scenarios/x.csv:4: column 6 (connections): expected a positive integer, got 'abc'");
  EXPECT_EQ(rowError("a,get-time.js,,x,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 4 (delayCallDepth): expected a non-negative integer, got "
            "'x'");
  EXPECT_EQ(rowError("a,get-time.js,,0,1.5,1,1,0,1\n"),
            "scenarios/x.csv:2: column 5 (delayInMillis): expected a non-negative integer, got "
            "'1.5'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,fast,0,1\n"),
            "scenarios/x.csv:2: column 7 (requestsPerSecond): expected a positive integer, or "
            "nothing for no rate, got 'fast'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,ten,1\n"),
            "scenarios/x.csv:2: column 8 (warmupDurationInSeconds): expected whole seconds "
            "from 0 to 86400, got 'ten'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,+5\n"),
            "scenarios/x.csv:2: column 9 (testDurationInSeconds): expected whole seconds from 1 "
            "to 86400, got '+5'");
}

TEST(ScenarioFileErrors, MissingNumber) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,,1,0,1\n"),
            "scenarios/x.csv:2: column 6 (connections): expected a positive integer, got nothing");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,,1\n"),
            "scenarios/x.csv:2: column 8 (warmupDurationInSeconds): expected whole seconds "
            "from 0 to 86400, got nothing");
}

TEST(ScenarioFileErrors, NegativeOrZeroValues) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,-5\n"),
            "scenarios/x.csv:2: column 9 (testDurationInSeconds): expected whole seconds from 1 "
            "to 86400, got '-5'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,-1,1\n"),
            "scenarios/x.csv:2: column 8 (warmupDurationInSeconds): expected whole seconds "
            "from 0 to 86400, got '-1'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,0,1,0,1\n"),
            "scenarios/x.csv:2: column 6 (connections): expected a positive integer, got '0'");
  EXPECT_EQ(rowError("a,get-time.js,,-1,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 4 (delayCallDepth): expected a non-negative integer, got "
            "'-1'");
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,0,0,1\n"),
            "scenarios/x.csv:2: column 7 (requestsPerSecond): expected a positive integer, or "
            "nothing for no rate, got '0'");
}

TEST(ScenarioFileErrors, NumberTooLarge) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,99999999999,1,0,1\n"),
            "scenarios/x.csv:2: column 6 (connections): expected a positive integer, got "
            "'99999999999' (larger than 4294967295)");
}

TEST(ScenarioFileErrors, UnknownWorkload) {
  EXPECT_EQ(rowError("a,get-nothing.js,,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 2 (k6Config): unknown workload 'get-nothing.js' (known: "
            "get-movies, get-movies-smooth-vus-spike, get-movies-stepped-vus-spike, "
            "get-post-movies-sharp-vus-spikes, get-post-movies-smooth-vus-spike, get-time, "
            "get-time-arrival-rate)");
  EXPECT_EQ(rowError("a,,,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 2 (k6Config): expected a workload name, got nothing");
}

TEST(ScenarioFileErrors, BadScenarioName) {
  EXPECT_EQ(rowError(",get-time.js,,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 1 (scenario): expected a name of letters, digits, '-', "
            "'_' and '.' (not starting with '.'), got nothing");
  EXPECT_EQ(rowError("../etc,get-time.js,,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 1 (scenario): expected a name of letters, digits, '-', "
            "'_' and '.' (not starting with '.'), got '../etc'");
}

TEST(ScenarioFileErrors, DuplicateScenarioName) {
  EXPECT_EQ(rowError("a,get-time.js,,0,0,1,1,0,1\n"
                     "a,get-movies.js,,0,0,1,1,0,1\n"),
            "scenarios/x.csv:3: column 1 (scenario): duplicate scenario name 'a' (first used on "
            "line 2)");
}

TEST(ScenarioFileErrors, EmptyServerProfile) {
  EXPECT_EQ(rowError("a,get-time.js,postgres||no-cache,0,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 3 (serverProfiles): expected profile names separated by "
            "'|', got 'postgres||no-cache'");
}

TEST(ScenarioFileErrors, TwoClientProfilesInOneRow) {
  EXPECT_EQ(rowError("a,get-time.js,client-curl|no-cache|client-poco,1,0,1,1,0,1\n"),
            "scenarios/x.csv:2: column 3 (serverProfiles): at most one client profile "
            "(client-...) per row, got 'client-curl|no-cache|client-poco'");
  EXPECT_EQ(rowError("a,get-time.js,client-curl|no-cache,1,0,1,1,0,1\n"), "");
}

TEST(ScenarioFileErrors, TooFewConnectionsForTheWorkloadsGroups) {
  EXPECT_EQ(rowError("a,get-post-movies-smooth-vus-spike.js,,0,0,3,,0,1\n"),
            "scenarios/x.csv:2: column 6 (connections): 3 connections leave sub-scenario "
            "'getMovies1' of workload 'get-post-movies-smooth-vus-spike' none (it gets 0.25 of "
            "them)");
  EXPECT_EQ(rowError("a,get-post-movies-smooth-vus-spike.js,,0,0,4,,0,1\n"), "");
}

TEST(ScenarioFileErrors, ArrivalRateWorkloadNeedsARate) {
  SubScenario open_model;
  open_model.name = "arrivals";
  open_model.executor = ExecutorKind::kConstantArrivalRate;
  RequestTemplate request;
  request.method = "GET";
  request.path_template = "/";
  open_model.requests.push_back(request);
  Workload workload;
  workload.name = "open";
  workload.sub_scenarios.push_back(open_model);
  const WorkloadCatalog catalog({workload});
  try {
    parseScenarioText(std::string(kHeader) + "a,open.js,,0,0,10,,0,1\n", "x.csv", catalog);
    FAIL() << "expected a ScenarioFileError";
  } catch (const ScenarioFileError& error) {
    EXPECT_STREQ(error.what(),
                 "x.csv:2: column 7 (requestsPerSecond): workload 'open' has an arrival-rate "
                 "executor and needs a request rate, got nothing");
  }
  EXPECT_EQ(
      parseScenarioText(std::string(kHeader) + "a,open,,0,0,10,100,0,1\n", "x.csv", catalog).size(),
      1U);
}

TEST(ScenarioFileErrors, NoRows) {
  EXPECT_EQ(errorOf(""),
            "scenarios/x.csv: no scenario rows (the first line is a header and is always skipped)");
  EXPECT_EQ(errorOf(std::string(kHeader) + "\n# only a comment\n"),
            "scenarios/x.csv: no scenario rows (the first line is a header and is always skipped)");
}

TEST(ScenarioFileErrors, ReportsTheFirstProblemAndReturnsNothing) {
  const std::string text = std::string(kHeader) +
                           "good,get-time.js,,0,0,1,1,0,1\n"
                           "bad,get-time.js,,0,0,1,1,0,0\n"
                           "worse,get-time.js,,0,0,abc,1,0,0\n";
  EXPECT_THROW(parse(text), ScenarioFileError);
  EXPECT_EQ(errorOf(text),
            "scenarios/x.csv:3: column 9 (testDurationInSeconds): expected whole seconds from 1 "
            "to 86400, got '0'");
}

TEST(ScenarioFileErrors, ExposesTheParts) {
  try {
    parse(std::string(kHeader) + "a,get-time.js,,0,0,abc,1,0,1\n");
    FAIL() << "expected a ScenarioFileError";
  } catch (const ScenarioFileError& error) {
    EXPECT_EQ(error.file(), "scenarios/x.csv");
    EXPECT_EQ(error.line(), 2U);
    EXPECT_EQ(error.column(), 6U);
    EXPECT_EQ(error.reason(), "expected a positive integer, got 'abc'");
  }
}

TEST(LoadScenarioFile, ReadsAFileAndNamesItInErrors) {
  const TempDir dir;
  dir.write("good.csv", std::string(kHeader) + "a,get-time.js,,0,0,1,1,0,1\n");
  const auto good = dir.path() / "good.csv";
  EXPECT_EQ(loadScenarioFile(good, shippedWorkloads()).size(), 1U);

  dir.write("bad.csv", std::string(kHeader) + "a,get-time.js,,0,0,1,1,0,x\n");
  const auto bad = dir.path() / "bad.csv";
  try {
    loadScenarioFile(bad, shippedWorkloads());
    FAIL() << "expected a ScenarioFileError";
  } catch (const ScenarioFileError& error) {
    EXPECT_EQ(std::string(error.what()), bad.string() +
                                             ":2: column 9 (testDurationInSeconds): expected whole "
                                             "seconds from 1 to 86400, got 'x'");
  }
}

TEST(LoadScenarioFile, MissingFileOrDirectory) {
  const TempDir dir;
  try {
    loadScenarioFile(dir.path() / "none.csv", shippedWorkloads());
    FAIL() << "expected a ScenarioFileError";
  } catch (const ScenarioFileError& error) {
    EXPECT_EQ(std::string(error.what()), (dir.path() / "none.csv").string() + ": no such file");
    EXPECT_EQ(error.line(), 0U);
  }
  try {
    loadScenarioFile(dir.path(), shippedWorkloads());
    FAIL() << "expected a ScenarioFileError";
  } catch (const ScenarioFileError& error) {
    EXPECT_EQ(std::string(error.what()), dir.path().string() + ": is a directory, not a file");
  }
}

}  // namespace
}  // namespace benchd::scenario
