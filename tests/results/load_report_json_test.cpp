// writeLoadReportJson: every field of `benchd load --json`, from a hand-made summary (so each
// value shows where it comes from, and that the formatter computes nothing).
#include <benchd/results/load_report_json.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>
#include <string>
#include <vector>

namespace benchd::results {
namespace {

LoadSummary summary() {
  LoadSummary summary;
  summary.run.target = "http://127.0.0.1:8080";
  summary.run.approach = "threads";
  summary.run.workload = "get-time";
  summary.run.connections = 64;
  summary.run.test_seconds = 10;
  summary.run.warmup_seconds = 2;
  summary.run.requests_per_second = 300;
  summary.run.stopped_early = true;
  summary.open_model = true;
  summary.elapsed_seconds = 10.5;
  summary.responses = 9;
  summary.responses_per_second = 0.875;
  summary.failures_per_second = 0.125;
  summary.requests_sent = 11;
  summary.requests_completed = 10;
  summary.requests_ok = 7;
  summary.requests_errors = 3;
  summary.requests_requested = 9;
  summary.requests_interrupted = 1;
  summary.dropped_arrivals = 4;
  summary.late_arrivals = 5;
  summary.errors_by_class = {{"connection_refused", 1}, {"http_5xx", 2}};
  summary.requests_per_second = 0.95;
  summary.intended_requests_per_second = 300.0;
  summary.latency = {9, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 2.5, 2.75};
  summary.uncorrected_latency = {8, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 1.75};
  summary.bytes_sent = 1234;
  summary.bytes_received = 5678;
  summary.bytes_received_per_second = 540.0;
  summary.connects = 12;
  summary.peak_active_vus = 13;
  summary.generator_threads = 2;
  summary.generator_cores = 3;
  summary.generator_cpu_percent_avg = 14.5;
  summary.generator_cpu_percent_max = 15.5;
  summary.generator_cpu_seconds = 0.25;
  summary.generator_cpu_micros_per_request = 16.5;
  summary.generator_saturated = true;
  summary.saturation_reason = "said \"late\"";
  summary.warnings = {"first", "second"};
  LoadSecondDigest second;
  second.index = 1;
  second.start_seconds = 1.0;
  second.duration_seconds = 1.25;
  second.ok = 17;
  second.errors = 18;
  second.requested = 19;
  second.dropped_arrivals = 20;
  second.requests_per_second = 21.5;
  second.intended_requests_per_second = 22.5;
  second.p50_millis = 23.5;
  second.p99_millis = 24.5;
  second.active_vus = 25;
  second.generator_cpu_percent = 26.5;
  summary.seconds = {second};
  return summary;
}

std::string jsonOf(const LoadSummary& summary) {
  std::ostringstream out;
  writeLoadReportJson(out, summary);
  return out.str();
}

std::vector<std::string> keysOf(const rapidjson::Value& object) {
  std::vector<std::string> keys;
  for (const auto& member : object.GetObject()) {
    keys.emplace_back(member.name.GetString());
  }
  return keys;
}

TEST(LoadReportJson, OneLineEndedByANewline) {
  const std::string text = jsonOf(summary());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);
}

TEST(LoadReportJson, TopLevelFieldsInOrder) {
  rapidjson::Document json;
  json.Parse(jsonOf(summary()).c_str());
  ASSERT_FALSE(json.HasParseError());
  EXPECT_EQ(keysOf(json), (std::vector<std::string>{"workload",
                                                    "url",
                                                    "approach",
                                                    "openModel",
                                                    "connections",
                                                    "durationSeconds",
                                                    "warmupSeconds",
                                                    "rate",
                                                    "requestLimit",
                                                    "stoppedEarly",
                                                    "elapsedSeconds",
                                                    "requests",
                                                    "errors",
                                                    "requestsPerSecond",
                                                    "responses",
                                                    "responsesPerSecond",
                                                    "failuresPerSecond",
                                                    "nothingAnswered",
                                                    "intendedRequestsPerSecond",
                                                    "latencyMillis",
                                                    "uncorrectedLatencyMillis",
                                                    "latenciesClamped",
                                                    "transfer",
                                                    "connects",
                                                    "peakActiveVus",
                                                    "generator",
                                                    "warnings",
                                                    "snapshots"}));
}

TEST(LoadReportJson, EveryValueComesFromTheSummary) {
  rapidjson::Document json;
  json.Parse(jsonOf(summary()).c_str());
  ASSERT_FALSE(json.HasParseError());
  EXPECT_STREQ(json["workload"].GetString(), "get-time");
  EXPECT_STREQ(json["url"].GetString(), "http://127.0.0.1:8080");
  EXPECT_STREQ(json["approach"].GetString(), "threads");
  EXPECT_TRUE(json["openModel"].GetBool());
  EXPECT_EQ(json["connections"].GetUint(), 64U);
  EXPECT_EQ(json["durationSeconds"].GetUint(), 10U);
  EXPECT_EQ(json["warmupSeconds"].GetUint(), 2U);
  EXPECT_EQ(json["rate"].GetUint(), 300U);
  EXPECT_TRUE(json["requestLimit"].IsNull());
  EXPECT_TRUE(json["stoppedEarly"].GetBool());
  EXPECT_EQ(json["elapsedSeconds"].GetDouble(), 10.5);
  EXPECT_EQ(json["responses"].GetUint64(), 9U);
  EXPECT_EQ(json["responsesPerSecond"].GetDouble(), 0.875);
  EXPECT_EQ(json["failuresPerSecond"].GetDouble(), 0.125);
  EXPECT_FALSE(json["nothingAnswered"].GetBool());

  const auto& requests = json["requests"];
  EXPECT_EQ(keysOf(requests),
            (std::vector<std::string>{"sent", "completed", "ok", "errors", "requested",
                                      "interrupted", "droppedArrivals", "lateArrivals"}));
  EXPECT_EQ(requests["sent"].GetUint64(), 11U);
  EXPECT_EQ(requests["completed"].GetUint64(), 10U);
  EXPECT_EQ(requests["ok"].GetUint64(), 7U);
  EXPECT_EQ(requests["errors"].GetUint64(), 3U);
  EXPECT_EQ(requests["requested"].GetUint64(), 9U);
  EXPECT_EQ(requests["interrupted"].GetUint64(), 1U);
  EXPECT_EQ(requests["droppedArrivals"].GetUint64(), 4U);
  EXPECT_EQ(requests["lateArrivals"].GetUint64(), 5U);

  EXPECT_EQ(keysOf(json["errors"]), (std::vector<std::string>{"connection_refused", "http_5xx"}));
  EXPECT_EQ(json["errors"]["connection_refused"].GetUint64(), 1U);
  EXPECT_EQ(json["errors"]["http_5xx"].GetUint64(), 2U);

  EXPECT_EQ(json["requestsPerSecond"].GetDouble(), 0.95);
  EXPECT_EQ(json["intendedRequestsPerSecond"].GetDouble(), 300.0);

  const auto& latency = json["latencyMillis"];
  EXPECT_EQ(keysOf(latency), (std::vector<std::string>{"count", "min", "p50", "p75", "p90", "p99",
                                                       "p999", "max", "mean"}));
  EXPECT_EQ(latency["count"].GetUint64(), 9U);
  EXPECT_EQ(latency["min"].GetDouble(), 1.0);
  EXPECT_EQ(latency["p50"].GetDouble(), 2.0);
  EXPECT_EQ(latency["p75"].GetDouble(), 2.75);
  EXPECT_EQ(latency["p90"].GetDouble(), 3.0);
  EXPECT_EQ(latency["p99"].GetDouble(), 4.0);
  EXPECT_EQ(latency["p999"].GetDouble(), 5.0);
  EXPECT_EQ(latency["max"].GetDouble(), 6.0);
  EXPECT_EQ(latency["mean"].GetDouble(), 2.5);
  const auto& uncorrected = json["uncorrectedLatencyMillis"];
  EXPECT_EQ(uncorrected["count"].GetUint64(), 8U);
  EXPECT_EQ(uncorrected["min"].GetDouble(), 0.5);
  EXPECT_EQ(uncorrected["p999"].GetDouble(), 4.5);
  EXPECT_EQ(uncorrected["mean"].GetDouble(), 1.75);

  EXPECT_EQ(json["transfer"]["bytesSent"].GetUint64(), 1234U);
  EXPECT_EQ(json["transfer"]["bytesReceived"].GetUint64(), 5678U);
  EXPECT_EQ(json["connects"].GetUint64(), 12U);
  EXPECT_EQ(json["peakActiveVus"].GetUint(), 13U);

  const auto& generator = json["generator"];
  EXPECT_EQ(
      keysOf(generator),
      (std::vector<std::string>{"threads", "cores", "cpuPercentAvg", "cpuPercentMax", "cpuSeconds",
                                "cpuMicrosPerRequest", "saturated", "saturationReason"}));
  EXPECT_EQ(generator["threads"].GetUint(), 2U);
  EXPECT_EQ(generator["cores"].GetUint(), 3U);
  EXPECT_EQ(generator["cpuPercentAvg"].GetDouble(), 14.5);
  EXPECT_EQ(generator["cpuPercentMax"].GetDouble(), 15.5);
  EXPECT_EQ(generator["cpuSeconds"].GetDouble(), 0.25);
  EXPECT_EQ(generator["cpuMicrosPerRequest"].GetDouble(), 16.5);
  EXPECT_TRUE(generator["saturated"].GetBool());
  EXPECT_STREQ(generator["saturationReason"].GetString(), "said \"late\"");

  ASSERT_EQ(json["warnings"].Size(), 2U);
  EXPECT_STREQ(json["warnings"][0].GetString(), "first");
  EXPECT_STREQ(json["warnings"][1].GetString(), "second");

  ASSERT_EQ(json["snapshots"].Size(), 1U);
  const auto& second = json["snapshots"][0];
  EXPECT_EQ(keysOf(second),
            (std::vector<std::string>{"index", "startSeconds", "durationSeconds", "ok", "errors",
                                      "requested", "droppedArrivals", "requestsPerSecond",
                                      "intendedRequestsPerSecond", "p50Millis", "p99Millis",
                                      "activeVus", "generatorCpuPercent"}));
  EXPECT_EQ(second["index"].GetUint(), 1U);
  EXPECT_EQ(second["startSeconds"].GetDouble(), 1.0);
  EXPECT_EQ(second["durationSeconds"].GetDouble(), 1.25);
  EXPECT_EQ(second["ok"].GetUint64(), 17U);
  EXPECT_EQ(second["errors"].GetUint64(), 18U);
  EXPECT_EQ(second["requested"].GetUint64(), 19U);
  EXPECT_EQ(second["droppedArrivals"].GetUint64(), 20U);
  EXPECT_EQ(second["requestsPerSecond"].GetDouble(), 21.5);
  EXPECT_EQ(second["intendedRequestsPerSecond"].GetDouble(), 22.5);
  EXPECT_EQ(second["p50Millis"].GetDouble(), 23.5);
  EXPECT_EQ(second["p99Millis"].GetDouble(), 24.5);
  EXPECT_EQ(second["activeVus"].GetUint(), 25U);
  EXPECT_EQ(second["generatorCpuPercent"].GetDouble(), 26.5);
}

TEST(LoadReportJson, NoRateIsNullAndEmptyListsStayLists) {
  LoadSummary plain;
  rapidjson::Document json;
  json.Parse(jsonOf(plain).c_str());
  ASSERT_FALSE(json.HasParseError());
  EXPECT_TRUE(json["rate"].IsNull());
  EXPECT_TRUE(json["errors"].IsObject());
  EXPECT_EQ(json["errors"].MemberCount(), 0U);
  EXPECT_TRUE(json["warnings"].IsArray());
  EXPECT_EQ(json["warnings"].Size(), 0U);
  EXPECT_TRUE(json["snapshots"].IsArray());
  EXPECT_EQ(json["snapshots"].Size(), 0U);
  EXPECT_STREQ(json["generator"]["saturationReason"].GetString(), "");
}

}  // namespace
}  // namespace benchd::results
