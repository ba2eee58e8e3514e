// Noise thresholds per metric (results/noise_thresholds.hpp): measured from an A/A pair's rounds,
// written and read back as a file, and what a threshold changes in the grid's decision.
#include <benchd/results/metric_format.hpp>
#include <benchd/results/noise_thresholds.hpp>
#include <benchd/results/winner_decision.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace benchd::results {
namespace {

double shareOf(const NoiseThresholds& thresholds, std::string_view metric) {
  return thresholds.of(metric);
}

/// An A/A table over two metrics: `a` and `a#2` in `rounds` rounds of scenarios s1 and s2.
ResultsTable aaTable(const std::vector<double>& cpu_a, const std::vector<double>& cpu_b,
                     const std::vector<double>& p99_a, const std::vector<double>& p99_b) {
  ResultsTable table({"cpu_millis_per_request", "latency_millis_p99", "requests_error"});
  for (const char* scenario : {"s1", "s2"}) {
    for (std::size_t round = 0; round < cpu_a.size(); ++round) {
      const double scale = std::string(scenario) == "s1" ? 1.0 : 2.0;
      for (const bool copy : {false, true}) {
        ResultsRow row;
        row.scenario = scenario;
        row.approach = copy ? "a#2" : "a";
        row.cells = {formatExactMetricValue(scale * (copy ? cpu_b : cpu_a)[round]),
                     formatExactMetricValue((copy ? p99_b : p99_a)[round]), "0"};
        table.addRow(std::move(row));
      }
    }
  }
  return table;
}

TEST(NoiseThresholds, AnAaPairsMedianRoundDifferenceIsItsMetricsThreshold) {
  // CPU: the copies differ by +2 %, -2 %, +4 % of their mean: the median is 2 %. Latency: a
  // median difference of 10 % (in the other direction: the size counts). Errors: 0 on both
  // sides in every round, nothing to measure: the fallback stays.
  const ResultsTable table =
      aaTable({1.01, 0.99, 1.02}, {0.99, 1.01, 0.98}, {9.5, 9.5, 10.0}, {10.5, 10.5, 10.0});
  NoiseThresholds fallback = shippedNoiseThresholds();
  fallback.share.fill(0.07);
  const NoiseThresholds measured = measureNoiseThresholds(table, "a", "a#2", fallback, "test");
  EXPECT_NEAR(shareOf(measured, "cpu_millis_per_request"), 0.02, 1e-9);
  EXPECT_NEAR(shareOf(measured, "latency_millis_p99"), 0.1, 1e-9);
  EXPECT_DOUBLE_EQ(shareOf(measured, "requests_error"), 0.07);
  EXPECT_DOUBLE_EQ(shareOf(measured, "rss_mib_avg"), 0.07) << "not in the table";
  EXPECT_EQ(measured.source, "test");
}

TEST(NoiseThresholds, CopiesThatAgreeExactlyStillGetTheLowestThreshold) {
  const ResultsTable table = aaTable({1, 1, 1, 1}, {1, 1, 1, 1}, {5, 5, 5, 5}, {5, 5, 5, 5});
  const NoiseThresholds measured =
      measureNoiseThresholds(table, "a", "a#2", shippedNoiseThresholds(), "test");
  EXPECT_DOUBLE_EQ(shareOf(measured, "cpu_millis_per_request"), kLowestNoiseShare);
}

TEST(NoiseThresholds, CopiesThatDifferWildlyAreCappedSoTheirFileReadsBack) {
  // One copy near 0 and the other not, round after round (a near-idle host's CPU share): the
  // difference to the pair's mean approaches 200 %. The threshold stops at 100 %, the most a
  // file holds, and a file written from it reads back (found by an A/A run of 3 rounds).
  const ResultsTable table = aaTable({0.01, 0.02, 0.01}, {1.0, 1.5, 2.0}, {5, 5, 5}, {5, 5, 5});
  const NoiseThresholds measured =
      measureNoiseThresholds(table, "a", "a#2", shippedNoiseThresholds(), "test");
  EXPECT_DOUBLE_EQ(shareOf(measured, "cpu_millis_per_request"), kHighestNoiseShare);
  std::ostringstream text;
  writeNoiseThresholds(text, measured);
  std::istringstream in(text.str());
  EXPECT_DOUBLE_EQ(readNoiseThresholds(in, "file.csv").of("cpu_millis_per_request"), 1.0);
}

TEST(NoiseThresholds, AFileReadsBackAsItWasWritten) {
  NoiseThresholds written = shippedNoiseThresholds();
  written.share[*metricIndex("latency_millis_p99")] = 0.1234;
  written.share[*metricIndex("cpu_millis_per_request")] = 0.008;
  written.source = "an A/A run of 10 rounds";
  std::ostringstream text;
  writeNoiseThresholds(text, written);
  std::istringstream in(text.str());
  const NoiseThresholds read = readNoiseThresholds(in, "file.csv");
  EXPECT_EQ(read.source, "an A/A run of 10 rounds");
  for (std::size_t index = 0; index < kMetricCount; ++index) {
    EXPECT_NEAR(read.share[index], written.share[index], 1e-6) << kMetricNames[index];
  }
}

TEST(NoiseThresholds, AFileNamesTheLineAtFault) {
  const auto reason = [](const std::string& text) {
    std::istringstream in(text);
    try {
      static_cast<void>(readNoiseThresholds(in, "t.csv"));
    } catch (const NoiseThresholdsError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(reason("# nothing\n"),
            "t.csv:0: no 'metric,threshold_percent' header: not a noise thresholds file");
  EXPECT_EQ(reason("metric,share\n"),
            "t.csv:1: expected the header 'metric,threshold_percent', got 'metric,share'");
  EXPECT_EQ(reason("metric,threshold_percent\nlatency_p99,5\n"),
            "t.csv:2: 'latency_p99' is not a summary metric (docs/metrics-and-ranking.md)");
  EXPECT_EQ(reason("metric,threshold_percent\n\nrss_mib_avg,1\nrss_mib_avg,2\n"),
            "t.csv:4: 'rss_mib_avg' is given twice");
  EXPECT_EQ(reason("metric,threshold_percent\nrss_mib_avg,-1\n"),
            "t.csv:2: rss_mib_avg: expected a threshold in percent from 0 to 100, got '-1'");
  EXPECT_EQ(reason("metric,threshold_percent\nrss_mib_avg,1,2\n"),
            "t.csv:2: expected 'metric,threshold_percent', got 'rss_mib_avg,1,2'");
  // A metric left out keeps the shipped value.
  std::istringstream partial("metric,threshold_percent\nrss_mib_avg,1.5\n");
  const NoiseThresholds read = readNoiseThresholds(partial, "t.csv");
  EXPECT_DOUBLE_EQ(read.of("rss_mib_avg"), 0.015);
  EXPECT_DOUBLE_EQ(read.of("latency_millis_p99"),
                   shippedNoiseThresholds().of("latency_millis_p99"));
  EXPECT_EQ(read.source, "t.csv");
}

TEST(NoiseThresholds, AMetricsOwnThresholdDecidesItsCells) {
  // b leads a by 2 % in CPU per request in each of 10 rounds (a little spread so the rounds
  // differ): beyond a 1 % threshold, not beyond 3 %.
  ResultsTable runs({"cpu_millis_per_request"});
  for (int round = 0; round < 10; ++round) {
    const double a = 1.0 + 0.001 * round;
    for (const auto& [approach, value] :
         {std::pair<const char*, double>{"a", a}, {"b", a / 1.02}}) {
      ResultsRow row;
      row.scenario = "s";
      row.approach = approach;
      row.cells = {formatExactMetricValue(value)};
      runs.addRow(std::move(row));
    }
  }
  DecisionSettings settings;
  settings.noise.share.fill(0.03);
  EXPECT_EQ(decideWinners(runs, {"a", "b"}, settings).cell(0, 0).outcome, CellOutcome::kUndecided);
  settings.noise.share[*metricIndex("cpu_millis_per_request")] = 0.01;
  settings.noise.source = "a 1 % threshold for CPU per request";
  const WinnersGrid grid = decideWinners(runs, {"a", "b"}, settings);
  EXPECT_EQ(grid.cell(0, 0).outcome, CellOutcome::kWin);
  EXPECT_EQ(grid.cell(0, 0).winner, "b");
  EXPECT_NE(grid.rule_note.find("per metric, from 1 % (cpu_millis_per_request) to 3 %"),
            std::string::npos)
      << grid.rule_note;
  EXPECT_NE(grid.rule_note.find("a 1 % threshold for CPU per request"), std::string::npos);
}

}  // namespace
}  // namespace benchd::results
