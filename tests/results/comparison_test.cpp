#include <benchd/results/comparison.hpp>
#include <benchd/results/metric_format.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace benchd::results {
namespace {

const std::string kHeader =
    "scenario,approach,requests_per_second_p50,requests_per_second_p90,requests_per_second_max,"
    "latency_millis_min,latency_millis_p50,latency_millis_p90,latency_millis_p99,latency_millis_"
    "max,cpu_use_percent_avg\n";

// s1/a runs twice before: its means are rps 1000/100/0 and latency 10/10/20/40/100.
const std::string kBefore = kHeader +
                            "s1,a,900,90,0,10,10,20,40,100,50\n"
                            "s1,a,1100,110,0,10,10,20,40,100,50\n"
                            "s2,a,500,500,500,1,1,1,1,1,1\n";
const std::string kAfter = kHeader +
                           "s1,a,1050,99,5,10.1,11,15,40,,40\n"
                           "s3,a,1,1,1,1,1,1,1,1,1\n";

const MetricChange& changeOf(const GroupComparison& group, std::string_view metric) {
  for (const MetricChange& change : group.changes) {
    if (change.metric == metric) {
      return change;
    }
  }
  ADD_FAILURE() << "no change for " << metric;
  return group.changes.front();
}

Comparison compared(double threshold = kDefaultChangeThresholdPercent) {
  return compareResults(readResultsCsv(kBefore, "before.csv"), readResultsCsv(kAfter, "after.csv"),
                        threshold);
}

TEST(ComparisonTest, Classification) {
  EXPECT_EQ(classifyChange("requests_per_second_p50", 2.5, 2.0), ChangeClass::kImproved);
  EXPECT_EQ(classifyChange("requests_per_second_p50", -2.5, 2.0), ChangeClass::kRegressed);
  EXPECT_EQ(classifyChange("requests_per_second_p50", 2.0, 2.0), ChangeClass::kNeutral);
  EXPECT_EQ(classifyChange("latency_millis_p99", -2.5, 2.0), ChangeClass::kImproved);
  EXPECT_EQ(classifyChange("latency_millis_p99", 2.5, 2.0), ChangeClass::kRegressed);
  EXPECT_EQ(classifyChange("latency_millis_p99", -2.0, 2.0), ChangeClass::kNeutral);
  EXPECT_EQ(classifyChange("latency_millis_p99", std::nan(""), 2.0), ChangeClass::kNeutral);
  EXPECT_EQ(classifyChange("cpu_use_percent_avg", 50.0, 2.0), ChangeClass::kNeutral);
  EXPECT_EQ(shortMetricName("requests_per_second_p90"), "rps_p90");
  EXPECT_EQ(shortMetricName("latency_millis_max"), "lat_max");
  EXPECT_EQ(shortMetricName("cpu_use_percent_avg"), "cpu_use_percent_avg");
}

TEST(ComparisonTest, MeansJoinsAndPercentChanges) {
  const Comparison comparison = compared();
  ASSERT_EQ(comparison.groups.size(), 2U);
  const GroupComparison& throughput = comparison.groups[0];
  const GroupComparison& latency = comparison.groups[1];
  EXPECT_EQ(throughput.group, MetricGroup::kThroughput);
  EXPECT_EQ(latency.group, MetricGroup::kLatency);
  ASSERT_EQ(throughput.changes.size(), 3U);  // only s1/a is in both files
  ASSERT_EQ(latency.changes.size(), 5U);

  const MetricChange& p50 = changeOf(throughput, "requests_per_second_p50");
  EXPECT_EQ(p50.scenario, "s1");
  EXPECT_EQ(p50.approach, "a");
  EXPECT_DOUBLE_EQ(p50.before, 1000.0);  // mean of the repeated rows
  EXPECT_DOUBLE_EQ(p50.percent_change, 5.0);
  EXPECT_DOUBLE_EQ(p50.absolute_change, 50.0);
  EXPECT_EQ(p50.change, ChangeClass::kImproved);

  const MetricChange& p90 = changeOf(throughput, "requests_per_second_p90");
  EXPECT_DOUBLE_EQ(p90.percent_change, -1.0);
  EXPECT_EQ(p90.change, ChangeClass::kNeutral);

  const MetricChange& max = changeOf(throughput, "requests_per_second_max");
  EXPECT_TRUE(std::isnan(max.percent_change));  // before = 0
  EXPECT_DOUBLE_EQ(max.absolute_change, 5.0);
  EXPECT_EQ(max.change, ChangeClass::kNeutral);

  // NaN left out: mean of 5 and −1, sample deviation sqrt((9 + 9) / 1).
  EXPECT_DOUBLE_EQ(throughput.mean_percent_change, 2.0);
  EXPECT_DOUBLE_EQ(throughput.stddev_percent_change, std::sqrt(18.0));
  EXPECT_EQ(throughput.improved, 1U);
  EXPECT_EQ(throughput.regressed, 0U);
  EXPECT_EQ(throughput.neutral, 2U);

  EXPECT_NEAR(changeOf(latency, "latency_millis_min").percent_change, 1.0, 1e-9);
  EXPECT_EQ(changeOf(latency, "latency_millis_min").change, ChangeClass::kNeutral);
  EXPECT_DOUBLE_EQ(changeOf(latency, "latency_millis_p50").percent_change, 10.0);
  EXPECT_EQ(changeOf(latency, "latency_millis_p50").change, ChangeClass::kRegressed);
  EXPECT_DOUBLE_EQ(changeOf(latency, "latency_millis_p90").percent_change, -25.0);
  EXPECT_EQ(changeOf(latency, "latency_millis_p90").change, ChangeClass::kImproved);
  EXPECT_DOUBLE_EQ(changeOf(latency, "latency_millis_p99").percent_change, 0.0);
  // An empty cell is no value: the after mean is NaN, so is the change.
  EXPECT_TRUE(std::isnan(changeOf(latency, "latency_millis_max").after));
  EXPECT_TRUE(std::isnan(changeOf(latency, "latency_millis_max").percent_change));
  EXPECT_EQ(latency.improved, 1U);
  EXPECT_EQ(latency.regressed, 1U);
  EXPECT_EQ(latency.neutral, 3U);

  ASSERT_EQ(comparison.only_before.size(), 1U);
  EXPECT_EQ(comparison.only_before[0].scenario, "s2");
  ASSERT_EQ(comparison.only_after.size(), 1U);
  EXPECT_EQ(comparison.only_after[0].scenario, "s3");
}

TEST(ComparisonTest, ThresholdIsExclusive) {
  const Comparison comparison = compared(10.0);
  EXPECT_EQ(changeOf(comparison.groups[1], "latency_millis_p50").change, ChangeClass::kNeutral);
  EXPECT_EQ(changeOf(comparison.groups[1], "latency_millis_p90").change, ChangeClass::kImproved);
  EXPECT_EQ(changeOf(comparison.groups[0], "requests_per_second_p50").change,
            ChangeClass::kNeutral);
  EXPECT_THROW(compared(-1.0), std::invalid_argument);
  EXPECT_THROW(compared(std::nan("")), std::invalid_argument);
}

TEST(ComparisonTest, RowsFollowBeforeOrderAndMissingColumnsAreSkipped) {
  const ResultsTable before = readResultsCsv(
      "scenario,approach,latency_millis_p50\n"
      "z,b,1\nz,a,1\na,b,1\na,a,1\n",
      "b.csv");
  const ResultsTable after = readResultsCsv(
      "scenario,approach,latency_millis_p50,latency_millis_p99\n"
      "a,a,2,1\na,b,2,1\nz,a,2,1\nz,b,2,1\n",
      "a.csv");
  const Comparison comparison = compareResults(before, after);
  EXPECT_TRUE(comparison.groups[0].changes.empty());
  EXPECT_TRUE(std::isnan(comparison.groups[0].mean_percent_change));
  const std::vector<MetricChange>& changes = comparison.groups[1].changes;
  ASSERT_EQ(changes.size(), 4U);
  EXPECT_EQ(changes[0].scenario + "/" + changes[0].approach, "z/b");
  EXPECT_EQ(changes[1].scenario + "/" + changes[1].approach, "z/a");
  EXPECT_EQ(changes[2].scenario + "/" + changes[2].approach, "a/b");
  EXPECT_EQ(changes[3].scenario + "/" + changes[3].approach, "a/a");
  EXPECT_DOUBLE_EQ(comparison.groups[1].stddev_percent_change, 0.0);
}

TEST(ComparisonTest, Markdown) {
  std::ostringstream out;
  writeComparisonMarkdown(out, compared(), {"old/results.csv", "2026-06-01 10:00:00"},
                          {"new/results.csv", ""});
  const std::string markdown = out.str();
  const std::string head =
      "# Benchmark Comparison Report\n"
      "\n"
      "| role | path | last modified |\n"
      "|---|---|---|\n"
      "| before | old/results.csv | 2026-06-01 10:00:00 |\n"
      "| after | new/results.csv | unknown |\n"
      "\n";
  EXPECT_EQ(markdown.substr(0, head.size()), head);
  EXPECT_NE(markdown.find("A change beyond ±2.00 % counts"), std::string::npos);
  EXPECT_NE(markdown.find("## Throughput metrics\n\n"
                          "- Overall change: **2.00 %**\n"
                          "- Standard deviation: 4.24 %\n"
                          "- 1 improved, 0 regressed, 2 neutral\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| ✅ | s1 | a | rps_p50 | 1000 | 1050 | 5.00 | 50.00 |\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| ➖ | s1 | a | rps_max | 0 | 5 | n/a | 5.00 |\n"), std::string::npos);
  EXPECT_NE(markdown.find("| ❌ | s1 | a | lat_p50 | 10 | 11 | 10.00 | 1.00 |\n"),
            std::string::npos);
  EXPECT_NE(markdown.find("| ✅ | s1 | a | lat_p90 | 20 | 15 | -25.00 | -5.00 |\n"),
            std::string::npos);
  EXPECT_NE(markdown.find("| ➖ | s1 | a | lat_max | 100 | n/a | n/a | n/a |\n"), std::string::npos);
  EXPECT_NE(markdown.find("## Not compared\n\n- only in before: s2 / a\n- only in after: s3 / a\n"),
            std::string::npos)
      << markdown;
}

}  // namespace
}  // namespace benchd::results

namespace benchd::results {
namespace {

/// A table of `runs` runs of s/a: requests_per_second_p50 from `rps`, latency_millis_p50 from
/// `latency`, the i-th run adding i · `step` to both.
std::string repeatedRuns(int runs, double rps, double latency, double step) {
  std::string text = "scenario,approach,requests_per_second_p50,latency_millis_p50\n";
  for (int run = 0; run < runs; ++run) {
    text += "s,a," + formatMetricValue(rps + run * step) + "," +
            formatMetricValue(latency + run * step) + "\n";
  }
  return text;
}

TEST(ComparisonTest, RepeatedRunsOnBothSidesAreTestedNotThresholded) {
  // 5 runs a side: throughput 20 % up (every run above every run before), latency 0.3 % up with
  // runs that overlap: the first is a significant improvement, the second "~".
  const Comparison comparison =
      compareResults(readResultsCsv(repeatedRuns(5, 1000, 100, 1), "before.csv"),
                     readResultsCsv(repeatedRuns(5, 1200, 100.3, 1), "after.csv"));
  const MetricChange& rps = changeOf(comparison.groups[0], "requests_per_second_p50");
  EXPECT_TRUE(rps.tested);
  EXPECT_EQ(rps.change, ChangeClass::kImproved);
  EXPECT_DOUBLE_EQ(rps.before, 1002.0);  // medians
  EXPECT_DOUBLE_EQ(rps.after, 1202.0);
  EXPECT_NEAR(rps.p_value, 2.0 / 252.0, 1e-12);
  EXPECT_LT(rps.percent_low, rps.percent_change);
  EXPECT_GT(rps.percent_low, 10.0);
  EXPECT_EQ(rps.runs_before, 5U);
  const MetricChange& latency = changeOf(comparison.groups[1], "latency_millis_p50");
  EXPECT_TRUE(latency.tested);
  EXPECT_EQ(latency.change, ChangeClass::kNeutral);  // the runs overlap: not significant
  EXPECT_GT(latency.p_value, 0.05);
  std::ostringstream markdown;
  writeComparisonMarkdown(markdown, comparison, {"before.csv", ""}, {"after.csv", ""});
  EXPECT_NE(markdown.str().find("| ~ | s | a | lat_p50 |"), std::string::npos) << markdown.str();
  EXPECT_NE(markdown.str().find("p < 0.05"), std::string::npos);
  EXPECT_NE(markdown.str().find("| 0.0079 | 5 / 5 |"), std::string::npos) << markdown.str();

  // Significant is not enough: 1 % up in runs that never overlap (p 0.0079 unmoved) is within
  // the default 2 % threshold, so "~"; at a 0.5 % threshold the same runs are an improvement.
  const ResultsTable before_runs = readResultsCsv(repeatedRuns(5, 1000, 100, 1), "before.csv");
  const ResultsTable after_runs = readResultsCsv(repeatedRuns(5, 1010, 100, 1), "after.csv");
  const Comparison at_default = compareResults(before_runs, after_runs);
  const MetricChange& within = changeOf(at_default.groups[0], "requests_per_second_p50");
  EXPECT_TRUE(within.tested);
  EXPECT_EQ(within.change, ChangeClass::kNeutral);
  EXPECT_NEAR(within.percent_change, 1.0, 0.01);
  const Comparison at_half_a_percent = compareResults(before_runs, after_runs, 0.5);
  const MetricChange& beyond = changeOf(at_half_a_percent.groups[0], "requests_per_second_p50");
  EXPECT_EQ(beyond.change, ChangeClass::kImproved);
  EXPECT_NEAR(beyond.p_value, 2.0 / 252.0, 1e-12);

  // Three runs a side cannot be tested: the original's means and threshold decide.
  const Comparison few =
      compareResults(readResultsCsv(repeatedRuns(3, 1000, 100, 1), "before.csv"),
                     readResultsCsv(repeatedRuns(3, 1200, 100.3, 1), "after.csv"));
  const MetricChange& untested = changeOf(few.groups[0], "requests_per_second_p50");
  EXPECT_FALSE(untested.tested);
  EXPECT_DOUBLE_EQ(untested.before, 1001.0);  // the mean
  EXPECT_EQ(untested.change, ChangeClass::kImproved);
}

}  // namespace
}  // namespace benchd::results
