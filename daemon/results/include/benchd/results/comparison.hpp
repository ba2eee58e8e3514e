#pragma once

#include <benchd/results/results_table.hpp>

#include <cstddef>
#include <iosfwd>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::results {

/// A before/after report between two results tables, e.g. two builds of the same plugins or one
/// host before and after tuning. The original's compare_benchmarks.py
/// (docs/metrics-and-ranking.md#comparing-two-results-files):
///   1. per table, group rows by (scenario, approach) and take the mean of each metric, so files
///      with repeated runs compare their averages; empty cells are left out of a mean (pandas'
///      NaN-skipping), a group with none has a NaN mean;
///   2. inner join: only (scenario, approach) pairs present in both tables are compared; a
///      metric column missing from either table is skipped;
///   3. % change = (after − before) / before · 100, NaN when before is 0; absolute change =
///      after − before;
///   4. classification against `threshold_percent`: Throughput (requests_per_second_p50/p90/max,
///      higher is better) improves above +threshold and regresses below −threshold; Latency
///      (latency_millis_min/p50/p90/p99/max, lower is better) the reverse; anything else, and a
///      NaN change, is neutral;
///   5. per group: mean and sample standard deviation (n − 1) of the % changes, NaN ones left
///      out; NaN when there are none (mean) or fewer than two (deviation).
/// Rows come in scenario order (first appearance in `before`), then approach order (likewise),
/// then the group's metric order.
///
/// Beyond the original, for repeated runs: when both tables hold enough runs of a pair for the
/// U test to reach p < 0.05 (at least 4 a side), that pair's changes are **tested** instead of
/// tested, as benchstat does, with the threshold built into the hypothesis: before and after are
/// the medians of the runs; the runs before are moved by `threshold_percent` in the direction
/// the medians moved, and the change is improved or regressed (by its sign and the metric's
/// direction) when the two-sided Mann–Whitney U test of the runs after against those moved
/// runs gives p < 0.05 and the median after lies beyond the moved median; otherwise "~" (no
/// change beyond the threshold that the runs can show, neutral). p_value is that test's. The
/// change's 95 % bootstrap interval (ratio of medians) is reported beside it.
///
/// Pure functions over values; safe to call from any thread.

enum class MetricGroup { kThroughput = 1, kLatency };
enum class ChangeClass { kImproved = 1, kRegressed, kNeutral };

inline constexpr double kDefaultChangeThresholdPercent = 2.0;

/// The group's metric columns, in report order.
[[nodiscard]] const std::vector<std::string>& groupMetrics(MetricGroup group);
/// "Throughput" or "Latency".
[[nodiscard]] std::string_view groupName(MetricGroup group);
/// requests_per_second_x → rps_x, latency_millis_x → lat_x, others unchanged.
[[nodiscard]] std::string shortMetricName(std::string_view metric);
/// Step 4 above for one metric's % change.
[[nodiscard]] ChangeClass classifyChange(std::string_view metric, double percent_change,
                                         double threshold_percent);

struct MetricChange {
  std::string scenario;
  std::string approach;
  std::string metric;
  double before = 0.0;          ///< mean over the before table's rows of the pair
  double after = 0.0;           ///< likewise for after
  double percent_change = 0.0;  ///< NaN when before is 0 (or a mean is NaN)
  double absolute_change = 0.0;
  ChangeClass change = ChangeClass::kNeutral;
  /// Tested over repeated runs (above): `before` and `after` are then medians.
  bool tested = false;
  std::size_t runs_before = 0;
  std::size_t runs_after = 0;
  double p_value = std::numeric_limits<double>::quiet_NaN();      ///< when tested
  double percent_low = std::numeric_limits<double>::quiet_NaN();  ///< 95 % interval, when tested
  double percent_high = std::numeric_limits<double>::quiet_NaN();
};

struct GroupComparison {
  MetricGroup group = MetricGroup::kThroughput;
  std::vector<MetricChange> changes;
  double mean_percent_change = 0.0;    ///< NaN when no change is a number
  double stddev_percent_change = 0.0;  ///< NaN when fewer than two are
  std::size_t improved = 0;
  std::size_t regressed = 0;
  std::size_t neutral = 0;
};

/// A (scenario, approach) pair present in one table only.
struct UnmatchedRun {
  std::string scenario;
  std::string approach;
};

struct Comparison {
  double threshold_percent = kDefaultChangeThresholdPercent;
  std::vector<GroupComparison> groups;  ///< Throughput, then Latency
  std::vector<UnmatchedRun> only_before;
  std::vector<UnmatchedRun> only_after;
};

/// Compares `after` against `before`. Throws std::invalid_argument for a negative or
/// non-finite threshold.
[[nodiscard]] Comparison compareResults(const ResultsTable& before, const ResultsTable& after,
                                        double threshold_percent = kDefaultChangeThresholdPercent);

/// Where a compared table came from, for the report's file-info table.
struct ComparisonSource {
  std::string path;      ///< as the user gave it
  std::string modified;  ///< e.g. "2026-06-01 14:03:12"; "" when unknown
};

/// The report as Markdown: a title, the file-info table (role, path, last modified), the
/// threshold, then per group the overall change (mean ± standard deviation of the % changes),
/// the improved/regressed/neutral counts and one row per (scenario, approach, metric):
/// impact (✅ improved, ❌ regressed, ➖ neutral), scenario, approach, short metric name
/// (rps_p50, lat_p99, ...), before and after (formatMetricValue; "n/a" for no value), change in %
/// and absolute change (2 decimals, "n/a" for NaN). Runs present on one side only are listed
/// last.
void writeComparisonMarkdown(std::ostream& out, const Comparison& comparison,
                             const ComparisonSource& before, const ComparisonSource& after);

}  // namespace benchd::results
