// GET /metrics' text: the exposition format's rules (HELP/TYPE per family, escaped labels) and
// which metrics appear when.
#include "prometheus_text.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace benchd::control {
namespace {

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t found = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++found;
  }
  return found;
}

TEST(PrometheusText, IdleDaemonReportsItsQueueAndRunsButNoLiveValues) {
  DaemonMetrics metrics;
  metrics.version = "0.1.0";
  metrics.queue_length = 2;
  metrics.runs_by_status = {{"completed", 3}, {"failed", 0}};
  const std::string text = prometheusText(metrics);
  EXPECT_NE(text.find("benchd_queue_length 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("benchd_runs{status=\"completed\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("benchd_run_active 0\n"), std::string::npos);
  EXPECT_EQ(text.find("benchd_live_"), std::string::npos);
  EXPECT_EQ(text.find("benchd_run_info"), std::string::npos);
}

TEST(PrometheusText, EveryLineIsACommentOrAWellFormedSample) {
  DaemonMetrics metrics;
  metrics.version = "0.1.0";
  LiveRun live;
  live.run = 7;
  live.progress.scenario = "quote\" back\\slash\nnewline";
  live.progress.approach = "callbacks-asio";
  live.progress.row_number = 2;
  live.progress.row_count = 4;
  results::SecondRecord second;
  second.load.duration_micros = 500'000;
  second.load.counters.requests_ok = 1000;
  second.load.counters.errors[measurement::ErrorClass::kHttp5xx] = 5;
  second.load.latency.p99 = 12.5;
  live.latest_second = second;
  metrics.live = live;
  const std::string text = prometheusText(metrics);

  // Rates are per second of the interval (half a second here).
  EXPECT_NE(text.find("benchd_live_requests_per_second{outcome=\"ok\"} 2000\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("benchd_live_requests_per_second{outcome=\"failed\"} 10\n"),
            std::string::npos);
  EXPECT_NE(text.find("benchd_live_latency_milliseconds{quantile=\"0.99\"} 12.5\n"),
            std::string::npos);
  EXPECT_NE(text.find("benchd_live_errors{class=\"http_5xx\"} 5\n"), std::string::npos);
  EXPECT_NE(text.find(R"(scenario="quote\" back\\slash\nnewline")"), std::string::npos);
  EXPECT_NE(text.find("benchd_run_row 2\n"), std::string::npos);
  // No run id anywhere: each run would be a new series.
  EXPECT_EQ(text.find("run=\""), std::string::npos);
  EXPECT_EQ(text.find("id=\""), std::string::npos);

  const std::regex sample(
      R"(^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*",?)*\})? [-+0-9.eEInfa]+$)");
  std::istringstream lines(text);
  std::string line;
  std::size_t families = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      ++families;
      continue;
    }
    if (line.rfind("# HELP ", 0) == 0) {
      continue;
    }
    EXPECT_TRUE(std::regex_match(line, sample)) << line;
  }
  EXPECT_EQ(families, occurrences(text, "# HELP "));
  EXPECT_GE(families, 15U);
}

}  // namespace
}  // namespace benchd::control
