// `benchd load` as a process: argument errors and a short real run with JSON output.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "engine_test_support.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace benchd::loadgen {
namespace {

using benchd::testing::runCommand;

benchd::testing::CommandResult benchd(const std::vector<std::string>& arguments) {
  return runCommand(benchd::testing::cliPath(), arguments);
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// The line of `text` that starts with `prefix`, or "" when none does.
std::string lineStartingWith(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(prefix)) {
      return line;
    }
  }
  return "";
}

std::vector<std::string> linesOf(const std::string& text) {
  std::istringstream stream(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(stream, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::string workerUrl() {
  return "http://127.0.0.1:" + std::to_string(testing::sharedWorkerPort());
}

TEST(CliLoad, WithoutACommandPrintsTheOverviewAndFails) {
  const auto result = benchd({});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(firstLine(result.err), "benchd: missing command");
  EXPECT_NE(result.err.find("load"), std::string::npos);
}

TEST(CliLoad, AnUnknownCommandFails) {
  const auto result = benchd({"fly"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(firstLine(result.err), "benchd: unknown command 'fly'");
}

TEST(CliLoad, HelpGoesToStdout) {
  const auto result = benchd({"load", "--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(firstLine(result.out),
            "usage: benchd load --url http[s]://HOST:PORT --approach NAME [options]");
  EXPECT_TRUE(result.err.empty());
}

TEST(CliLoad, BadArgumentsGiveOneLineAndTheUsage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--approach", "a"}, "benchd load: --url is required"},
      {{"--url", "http://127.0.0.1:1"}, "benchd load: --approach is required"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--connections", "abc"},
       "benchd load: --connections: expected an integer from 1 to 1000000, got 'abc'"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--duration", "0"},
       "benchd load: --duration: expected an integer from 1 to 86400, got '0'"},
      {{"--url", "ftp://127.0.0.1:1", "--approach", "a"},
       "benchd load: --url: expected a URL like http://127.0.0.1:8080 or https://127.0.0.1:8443, "
       "got 'ftp://127.0.0.1:1'"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--frobnicate", "1"},
       "benchd load: unknown option '--frobnicate'"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--threads"},
       "benchd load: --threads: missing value"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--streams", "4"},
       "benchd load: --streams: 4 streams per connection need --http2 (HTTP/1.1 has no "
       "streams)"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--http2", "--streams", "0"},
       "benchd load: --streams: expected an integer from 1 to 1000, got '0'"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--arrivals", "queue"},
       "benchd load: --arrivals: expected 'drop' or 'wait', got 'queue'"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--workload", "get-time-arrival-rate"},
       "benchd load: --rate: workload 'get-time-arrival-rate' has an arrival-rate executor and "
       "needs a request rate, got nothing"},
      {{"--url", "http://127.0.0.1:1", "--approach", "a", "--workload",
        "get-post-movies-smooth-vus-spike", "--connections", "3"},
       "benchd load: --connections: 3 connections leave sub-scenario 'getMovies1' of workload "
       "'get-post-movies-smooth-vus-spike' none (it gets 0.25 of them)"},
  };
  for (const auto& [arguments, message] : cases) {
    std::vector<std::string> full = {"load"};
    full.insert(full.end(), arguments.begin(), arguments.end());
    const auto result = benchd(full);
    EXPECT_EQ(result.exit_code, 2) << message;
    EXPECT_EQ(firstLine(result.err), message);
    EXPECT_NE(result.err.find("usage: benchd load"), std::string::npos) << message;
    EXPECT_TRUE(result.out.empty()) << message;
  }
}

TEST(CliLoad, AnUnknownWorkloadNamesTheKnownOnes) {
  const auto result = benchd(
      {"load", "--url", "http://127.0.0.1:1", "--approach", "a", "--workload", "no-such-workload"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(firstLine(result.err).find("get-time"), std::string::npos) << result.err;
}

TEST(CliLoad, AShortRunPrintsParsableJson) {
  const auto result =
      benchd({"load", "--url", workerUrl(), "--approach", "callbacks-asio", "--connections", "8",
              "--rate", "200", "--duration", "2", "--delay", "2", "--threads", "1", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  rapidjson::Document json;
  json.Parse(result.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << result.out;
  ASSERT_TRUE(json.IsObject());
  EXPECT_STREQ(json["workload"].GetString(), "get-time");
  EXPECT_FALSE(json["openModel"].GetBool());
  EXPECT_TRUE(json["requestLimit"].IsNull());
  const auto& requests = json["requests"];
  EXPECT_GT(requests["ok"].GetUint64(), 300U);
  EXPECT_LT(requests["ok"].GetUint64(), 500U);
  EXPECT_EQ(requests["errors"].GetUint64(), 0U);
  EXPECT_EQ(json["errors"]["connection_refused"].GetUint64(), 0U);
  EXPECT_NEAR(json["requestsPerSecond"].GetDouble(), 200.0, 30.0);
  EXPECT_GE(json["latencyMillis"]["p50"].GetDouble(), 2.0);
  EXPECT_GE(json["latencyMillis"]["p99"].GetDouble(), json["latencyMillis"]["p50"].GetDouble());
  EXPECT_GT(json["transfer"]["bytesReceived"].GetUint64(), 0U);
  EXPECT_EQ(json["connects"].GetUint64(), 8U);
  // 200 requests per second take a few percent of a core: nowhere near saturation.
  EXPECT_FALSE(json["generator"]["saturated"].GetBool());
  EXPECT_EQ(json["generator"]["threads"].GetUint(), 1U);
  ASSERT_TRUE(json["snapshots"].IsArray());
  EXPECT_EQ(json["snapshots"].Size(), 2U);
}

TEST(CliLoad, RequestsEndsTheRunAfterNRequests) {
  const auto result =
      benchd({"load", "--url", workerUrl(), "--approach", "callbacks-asio", "--connections", "4",
              "--requests", "60", "--delay", "1", "--threads", "1", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  rapidjson::Document json;
  json.Parse(result.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << result.out;
  const auto& requests = json["requests"];
  EXPECT_EQ(requests["sent"].GetUint64(), 60U);
  EXPECT_EQ(requests["ok"].GetUint64(), 60U);
  EXPECT_EQ(requests["errors"].GetUint64(), 0U);
  // Reported like a timed run of the length it took: 60 requests of 1 ms take about a second,
  // not the day a count-limited run may last.
  EXPECT_LE(json["durationSeconds"].GetUint(), 10U);
  EXPECT_EQ(json["requestLimit"].GetUint64(), 60U);
  EXPECT_GE(json["snapshots"].Size(), 1U);
  EXPECT_LT(json["elapsedSeconds"].GetDouble(), 10.0);
}

TEST(CliLoad, RequestsNeedsAPositiveCount) {
  const auto result =
      benchd({"load", "--url", "http://127.0.0.1:1", "--approach", "a", "--requests", "0"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(firstLine(result.err),
            "benchd load: --requests: expected an integer from 1 to 1000000000000, got '0'");
  const auto help = benchd({"load", "--help"});
  EXPECT_NE(help.out.find("  --requests N "), std::string::npos) << help.out;
}

TEST(CliLoad, TextSummaryNamesErrorClasses) {
  const auto result = benchd(
      {"load", "--url", "http://127.0.0.1:" + std::to_string(testing::closedPort()), "--approach",
       "callbacks-asio", "--connections", "1", "--duration", "1", "--rate", "50"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  // Every request failed on a refused connect: the counts agree line by line.
  const std::string requests = lineStartingWith(result.out, "  requests     ");
  unsigned long long completed = 0;
  unsigned long long errors = 0;
  ASSERT_EQ(std::sscanf(requests.c_str(), "  requests     %llu completed: 0 ok, %llu errors",
                        &completed, &errors),
            2)
      << result.out;
  EXPECT_GT(completed, 0U) << result.out;
  EXPECT_EQ(errors, completed) << result.out;
  EXPECT_EQ(lineStartingWith(result.out, "  errors       "),
            "  errors       connection_refused " + std::to_string(completed))
      << result.out;
  EXPECT_EQ(lineStartingWith(result.out, "  latency      "), "  latency      no samples")
      << result.out;
  // Refused connects are failures with their own rate, not throughput; nothing answered.
  EXPECT_EQ(lineStartingWith(result.out, "  throughput   "),
            "  throughput   none: nothing answered, all " + std::to_string(completed) +
                " requests failed without a response (see errors)")
      << result.out;
  const std::string failures = lineStartingWith(result.out, "  failures     ");
  double failures_per_second = 0.0;
  ASSERT_EQ(std::sscanf(failures.c_str(), "  failures     %lf req/s ended without a response",
                        &failures_per_second),
            1)
      << result.out;
  EXPECT_GT(failures_per_second, 0.0);
  EXPECT_EQ(lineStartingWith(result.out, "  saturation   "),
            "  saturation   not judged: nothing answered")
      << result.out;
}

// Request-count mode on stderr: without --duration the progress counts requests ended of N,
// not seconds of the 86,400 a count-limited run may last.
TEST(CliLoad, RequestsProgressCountsRequestsOfN) {
  // 3,000 requests of at least 2 ms on 2 connections take at least 3 s: three progress lines.
  const auto result =
      benchd({"load", "--url", workerUrl(), "--approach", "callbacks-asio", "--connections", "2",
              "--requests", "3000", "--delay", "2", "--threads", "1"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::vector<std::string> lines = linesOf(result.err);
  ASSERT_GE(lines.size(), 3U) << result.err;
  unsigned long long before = 0;
  for (std::size_t index = 0; index < lines.size(); ++index) {
    const std::string& line = lines[index];
    EXPECT_EQ(line.find("86400"), std::string::npos) << line;
    unsigned long long ended = 0;
    unsigned long long limit = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "test %llu/%llu requests", &ended, &limit), 2) << line;
    EXPECT_EQ(limit, 3000U) << line;
    // The last interval may only wait for the loops to notice they are done.
    if (index + 1 < lines.size()) {
      EXPECT_GT(ended, before) << line;
    } else {
      EXPECT_EQ(ended, 3000U) << line;
    }
    before = ended;
    const std::size_t left_at = line.find(", about ");
    if (ended == 3000U) {
      EXPECT_EQ(left_at, std::string::npos) << "nothing is left at the end: " << line;
      continue;
    }
    ASSERT_NE(left_at, std::string::npos) << line;
    unsigned long long seconds_left = 0;
    ASSERT_EQ(std::sscanf(line.c_str() + left_at, ", about %llu s left", &seconds_left), 1) << line;
    // At most 1,000 requests per second end (2 connections, 2 ms each), so the rest takes at
    // least this long whatever the rate so far.
    EXPECT_GE(seconds_left, (3000U - ended) / 1000U) << line;
  }
}

TEST(CliLoad, AnOpenModelRunReportsUncorrectedLatencyAndDrops) {
  const auto result = benchd({"load", "--url", workerUrl(), "--approach", "callbacks-asio",
                              "--workload", "get-time-arrival-rate", "--rate", "100",
                              "--connections", "1", "--delay", "50", "--duration", "2", "--json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  rapidjson::Document json;
  json.Parse(result.out.c_str());
  ASSERT_FALSE(json.HasParseError()) << result.out;
  EXPECT_TRUE(json["openModel"].GetBool());
  EXPECT_GT(json["requests"]["droppedArrivals"].GetUint64(), 100U);
  EXPECT_GT(json["uncorrectedLatencyMillis"]["count"].GetUint64(), 10U);
}

}  // namespace
}  // namespace benchd::loadgen
