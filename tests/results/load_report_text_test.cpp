// writeLoadReportText: the whole text of hand-made summaries, so every line's layout is pinned.
// The summaries are built by hand (not by makeLoadSummary) and deliberately inconsistent in
// places, to show the formatter prints what the model says and computes nothing.
#include <benchd/results/load_report_text.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>

namespace benchd::results {
namespace {

LoadSummary closedSummary() {
  LoadSummary summary;
  summary.run.target = "http://127.0.0.1:8080";
  summary.run.approach = "threads";
  summary.run.workload = "get-time";
  summary.run.connections = 64;
  summary.run.test_seconds = 10;
  summary.run.warmup_seconds = 2;
  summary.run.delay_call_depth = 1;
  summary.run.delay_millis = 5;
  summary.elapsed_seconds = 10.05;
  summary.requests_sent = 1005;
  summary.requests_completed = 1000;
  summary.requests_ok = 990;
  summary.requests_errors = 10;
  summary.requests_interrupted = 5;
  summary.errors_by_class = {{"connection_refused", 0}, {"request_timeout", 3}, {"http_5xx", 7}};
  summary.requests_per_second = 99.5;
  summary.responses = 997;
  summary.responses_per_second = 99.2;
  summary.failures_per_second = 0.3;
  summary.latency = {1000, 1.5, 2.25, 9.999, 12.5, 20.0, 1234.5, 3.0, 5.0};
  summary.bytes_sent = std::uint64_t{1024} * 1024;
  summary.bytes_received = std::uint64_t{3} * 1024 * 1024;
  summary.bytes_received_per_second = 0.3 * 1024 * 1024;
  summary.connects = 64;
  summary.peak_active_vus = 63;
  summary.generator_threads = 2;
  summary.generator_cores = 2;
  summary.generator_cpu_percent_avg = 42.4;
  summary.generator_cpu_percent_max = 87.6;
  summary.generator_cpu_micros_per_request = 12.25;
  summary.warnings = {"net.core.somaxconn is 32, below the 64 connections"};
  return summary;
}

LoadSummary openSummary() {
  LoadSummary summary;
  summary.run.target = "http://10.0.0.1:9000";
  summary.run.approach = "fibers";
  summary.run.workload = "get-time-arrival-rate";
  summary.run.connections = 1;
  summary.run.test_seconds = 2;
  summary.run.requests_per_second = 100;
  summary.run.stopped_early = true;
  summary.open_model = true;
  summary.elapsed_seconds = 1.5;
  summary.requests_sent = 20;
  summary.requests_completed = 20;
  summary.requests_ok = 20;
  summary.requests_per_second = 13.25;
  summary.responses = 20;
  summary.responses_per_second = 13.25;
  summary.intended_requests_per_second = 100.0;
  summary.uncorrected_latency = {20, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 52.5};
  summary.dropped_arrivals = 170;
  summary.late_arrivals = 9;
  summary.connects = 1;
  summary.peak_active_vus = 1;
  summary.generator_threads = 1;
  summary.generator_cores = 1;
  summary.generator_cpu_percent_avg = 3.0;
  summary.generator_cpu_percent_max = 4.0;
  summary.generator_cpu_micros_per_request = 100.0;
  summary.generator_saturated = true;
  summary.saturation_reason = "the event loop was late by 12 ms";
  return summary;
}

std::string textOf(const LoadSummary& summary) {
  std::ostringstream out;
  writeLoadReportText(out, summary);
  return out.str();
}

TEST(LoadReportText, ClosedModel) {
  EXPECT_EQ(textOf(closedSummary()),
            "benchd load: workload get-time against http://127.0.0.1:8080 (approach threads)\n"
            "  64 connections, 10 s test, 2 s warm-up, no rate, 2 threads, depth 1, delay 5 ms\n"
            "\n"
            "  requests     1000 completed: 990 ok, 10 errors (1005 sent, 5 interrupted)\n"
            "  errors       request_timeout 3, http_5xx 7\n"
            "  throughput   99.2 req/s over 10.05 s\n"
            "  failures     0.3 req/s ended without a response (refused, timed out, reset)\n"
            "  latency      min 1.500 ms  p50 2.250 ms  p90 9.999 ms  p99 12.50 ms  max 1234.5 ms\n"
            "  distribution 50% 2.250 ms  75% 5.000 ms  90% 9.999 ms  99% 12.50 ms\n"
            "  transfer     1.00 MiB sent, 3.00 MiB received (0.30 MiB/s in)\n"
            "  connections  64 connects, 63 peak active\n"
            "  generator    CPU 42 % avg, 88 % max of 2 cores, 12.25 us/request\n"
            "  saturation   no\n"
            "  warning      net.core.somaxconn is 32, below the 64 connections\n");
}

TEST(LoadReportText, OpenModel) {
  EXPECT_EQ(textOf(openSummary()),
            "benchd load: workload get-time-arrival-rate against http://10.0.0.1:9000 (approach "
            "fibers)\n"
            "  1 connections, 2 s test, 0 s warm-up, arrival rate 100 req/s, 1 thread, depth 0, "
            "delay 0 ms (stopped early)\n"
            "\n"
            "  requests     20 completed: 20 ok, 0 errors (20 sent, 0 interrupted)\n"
            "  errors       none\n"
            "  throughput   13.2 req/s (intended 100.0 req/s) over 1.50 s\n"
            "  latency      no samples   (from the intended send time)\n"
            "  uncorrected  min 50.00 ms  p50 51.00 ms  p90 52.00 ms  p99 53.00 ms  max 55.00 ms"
            "   (from the actual send)\n"
            "  arrivals     170 dropped, 9 sent late\n"
            "  transfer     0.00 MiB sent, 0.00 MiB received (0.00 MiB/s in)\n"
            "  connections  1 connects, 1 peak active\n"
            "  generator    CPU 3 % avg, 4 % max of 1 core, 100.00 us/request\n"
            "  saturation   SATURATED: the event loop was late by 12 ms\n");
}

TEST(LoadReportText, NothingAnsweredSaysSoInsteadOfAThroughput) {
  LoadSummary summary = closedSummary();
  summary.requests_ok = 0;
  summary.responses = 0;
  summary.responses_per_second = 0.0;
  summary.failures_per_second = 39808.2;
  summary.nothing_answered = true;
  summary.generator_saturated = true;
  summary.saturation_reason = "closed loop without a rate cap reached 39812 req/s";
  const std::string text = textOf(summary);
  EXPECT_NE(text.find("  throughput   none: nothing answered, all 1000 requests failed without a "
                      "response (see errors)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  failures     39808.2 req/s ended without a response"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  saturation   not judged: nothing answered\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("SATURATED"), std::string::npos) << text;
}

TEST(LoadReportText, AClosedModelWithARateCallsItACap) {
  LoadSummary summary = closedSummary();
  summary.run.requests_per_second = 500;
  const std::string text = textOf(summary);
  EXPECT_NE(text.find(", rate cap 500 req/s, 2 threads,"), std::string::npos) << text;
}

TEST(LoadReportText, ARequestCountRunSaysHowManyAndHowLong) {
  LoadSummary summary = closedSummary();
  summary.run.request_limit = 5000;
  summary.run.test_seconds = 3;
  const std::string text = textOf(summary);
  EXPECT_NE(text.find("\n  64 connections, 5000 requests in 3 s, 2 s warm-up, no rate,"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find(" s test,"), std::string::npos) << text;
}

TEST(LoadReportText, PrintsTheModelsNumbersAsTheyAre) {
  LoadSummary summary = closedSummary();
  // Counts that do not add up, and a per-request CPU no counter explains: printed as given.
  summary.requests_completed = 7;
  summary.requests_errors = 0;
  summary.generator_cpu_micros_per_request = 1.5;
  const std::string text = textOf(summary);
  EXPECT_NE(text.find("  requests     7 completed: 990 ok, 0 errors"), std::string::npos) << text;
  // With no errors in total the per-class counts are not listed.
  EXPECT_NE(text.find("  errors       none\n"), std::string::npos) << text;
  EXPECT_NE(text.find(", 1.50 us/request\n"), std::string::npos) << text;
}

TEST(LoadReportText, LeavesTheStreamsFormatAsItFoundIt) {
  std::ostringstream out;
  writeLoadReportText(out, closedSummary());
  out << 2.5;
  EXPECT_EQ(out.str().substr(out.str().size() - 3), "2.5");
}

}  // namespace
}  // namespace benchd::results
