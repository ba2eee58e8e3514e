#include "markdown_text.hpp"

#include <benchd/results/comparison.hpp>
#include <benchd/results/metric_format.hpp>
#include <benchd/results/statistics.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace benchd::results {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The rows of one (scenario, approach) pair in one table.
struct RunRows {
  std::string scenario;
  std::string approach;
  std::vector<const ResultsRow*> rows;
};

std::vector<RunRows> groupRuns(const ResultsTable& table) {
  std::vector<RunRows> runs;
  for (const ResultsRow& row : table.rows()) {
    const auto found = std::find_if(runs.begin(), runs.end(), [&row](const RunRows& run) {
      return run.scenario == row.scenario && run.approach == row.approach;
    });
    if (found == runs.end()) {
      runs.push_back({row.scenario, row.approach, {&row}});
    } else {
      found->rows.push_back(&row);
    }
  }
  return runs;
}

const RunRows* findRun(const std::vector<RunRows>& runs, const RunRows& like) {
  const auto found = std::find_if(runs.begin(), runs.end(), [&like](const RunRows& run) {
    return run.scenario == like.scenario && run.approach == like.approach;
  });
  return found == runs.end() ? nullptr : &*found;
}

/// Mean of the non-empty cells of `metric` over the run's rows; NaN when all are empty.
double meanOf(const ResultsTable& table, const RunRows& run, std::size_t metric) {
  double sum = 0.0;
  std::size_t count = 0;
  for (const ResultsRow* row : run.rows) {
    if (row->cells[metric].find_first_not_of(" \t") != std::string::npos) {
      sum += table.number(*row, metric);
      ++count;
    }
  }
  return count == 0 ? kNaN : sum / static_cast<double>(count);
}

/// The run's values of `metric`, one per row with a value (empty cells and NaN left out).
std::vector<double> valuesOf(const ResultsTable& table, const RunRows& run, std::size_t metric) {
  std::vector<double> values;
  for (const ResultsRow* row : run.rows) {
    if (row->cells[metric].find_first_not_of(" \t") != std::string::npos) {
      const double value = table.number(*row, metric);
      if (!std::isnan(value)) {
        values.push_back(value);
      }
    }
  }
  return values;
}

/// Whether the metric is better when it grows (throughput) rather than when it shrinks.
bool higherIsBetter(std::string_view metric) {
  const std::vector<std::string>& throughput = groupMetrics(MetricGroup::kThroughput);
  return std::find(throughput.begin(), throughput.end(), metric) != throughput.end();
}

/// Tests the change of one metric over repeated runs of both sides (the "Beyond the original"
/// part of compareResults' contract), the threshold built into the hypothesis: the runs after
/// are tested against the runs before moved by `threshold_percent` in the direction the medians
/// moved, so a change is called only when it is significantly beyond the threshold.
void testChange(MetricChange& change, const std::vector<double>& before,
                const std::vector<double>& after, double threshold_percent) {
  change.tested = true;
  change.before = stats::median(before);
  change.after = stats::median(after);
  change.absolute_change = change.after - change.before;
  change.percent_change =
      change.before == 0.0 ? kNaN : (change.after - change.before) / change.before * 100.0;
  const stats::RatioInterval ratio = stats::bootstrapMedianRatio(after, before);
  change.percent_low = (ratio.low - 1.0) * 100.0;
  change.percent_high = (ratio.high - 1.0) * 100.0;
  change.change = ChangeClass::kNeutral;
  if (std::isnan(change.percent_change) || change.percent_change == 0.0) {
    change.p_value = stats::mannWhitneyU(after, before).p_value;
    return;
  }
  const bool grew = change.percent_change > 0.0;
  const double factor = 1.0 + (grew ? threshold_percent : -threshold_percent) / 100.0;
  std::vector<double> moved = before;
  for (double& value : moved) {
    value *= factor;
  }
  change.p_value = stats::mannWhitneyU(after, moved).p_value;
  const bool beyond =
      grew ? change.after > stats::median(moved) : change.after < stats::median(moved);
  if (change.p_value < 0.05 && beyond) {
    change.change =
        grew == higherIsBetter(change.metric) ? ChangeClass::kImproved : ChangeClass::kRegressed;
  }
}

std::size_t firstIndexOf(const std::vector<std::string>& names, const std::string& name) {
  return static_cast<std::size_t>(std::find(names.begin(), names.end(), name) - names.begin());
}

void summarise(GroupComparison& group) {
  std::vector<double> numbers;
  for (const MetricChange& change : group.changes) {
    if (!std::isnan(change.percent_change)) {
      numbers.push_back(change.percent_change);
    }
    switch (change.change) {
      case ChangeClass::kImproved:
        ++group.improved;
        break;
      case ChangeClass::kRegressed:
        ++group.regressed;
        break;
      case ChangeClass::kNeutral:
        ++group.neutral;
        break;
    }
  }
  group.mean_percent_change = kNaN;
  group.stddev_percent_change = kNaN;
  if (numbers.empty()) {
    return;
  }
  double sum = 0.0;
  for (const double number : numbers) {
    sum += number;
  }
  const double mean = sum / static_cast<double>(numbers.size());
  group.mean_percent_change = mean;
  if (numbers.size() < 2) {
    return;
  }
  double squares = 0.0;
  for (const double number : numbers) {
    squares += (number - mean) * (number - mean);
  }
  group.stddev_percent_change = std::sqrt(squares / static_cast<double>(numbers.size() - 1));
}

/// Two decimals, "n/a" for NaN, never "-0.00".
std::string twoDecimals(double value) {
  if (std::isnan(value)) {
    return "n/a";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  std::array<char, 330> buffer{};
  const auto printed = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                     std::chars_format::fixed, 2);
  std::string text(buffer.data(), printed.ptr);
  if (text == "-0.00") {
    text = "0.00";
  }
  return text;
}

/// A mean as results.csv would write it, "n/a" when there was no value.
std::string meanText(double value) {
  return std::isnan(value) ? "n/a" : formatMetricValue(value);
}

std::string_view impactSymbol(ChangeClass change) {
  switch (change) {
    case ChangeClass::kImproved:
      return "✅";
    case ChangeClass::kRegressed:
      return "❌";
    case ChangeClass::kNeutral:
      break;
  }
  return "➖";
}

void writeUnmatched(std::ostream& out, std::string_view side,
                    const std::vector<UnmatchedRun>& runs) {
  if (runs.empty()) {
    return;
  }
  out << "- only in " << side << ":";
  for (std::size_t i = 0; i < runs.size(); ++i) {
    out << (i == 0 ? " " : ", ") << markdownCell(runs[i].scenario) << " / "
        << markdownCell(runs[i].approach);
  }
  out << '\n';
}

}  // namespace

const std::vector<std::string>& groupMetrics(MetricGroup group) {
  static const std::vector<std::string> kThroughput = {
      "requests_per_second_p50", "requests_per_second_p90", "requests_per_second_max"};
  static const std::vector<std::string> kLatency = {"latency_millis_min", "latency_millis_p50",
                                                    "latency_millis_p90", "latency_millis_p99",
                                                    "latency_millis_max"};
  return group == MetricGroup::kThroughput ? kThroughput : kLatency;
}

std::string_view groupName(MetricGroup group) {
  return group == MetricGroup::kThroughput ? "Throughput" : "Latency";
}

std::string shortMetricName(std::string_view metric) {
  constexpr std::pair<std::string_view, std::string_view> kPrefixes[] = {
      {"requests_per_second_", "rps_"}, {"latency_millis_", "lat_"}};
  for (const auto& [prefix, replacement] : kPrefixes) {
    if (metric.substr(0, prefix.size()) == prefix) {
      return std::string(replacement) + std::string(metric.substr(prefix.size()));
    }
  }
  return std::string(metric);
}

ChangeClass classifyChange(std::string_view metric, double percent_change,
                           double threshold_percent) {
  const auto in = [metric](MetricGroup group) {
    const std::vector<std::string>& metrics = groupMetrics(group);
    return std::find(metrics.begin(), metrics.end(), metric) != metrics.end();
  };
  // NaN fails every comparison below and so stays neutral, as in the original.
  if (in(MetricGroup::kLatency)) {
    if (percent_change < -threshold_percent) {
      return ChangeClass::kImproved;
    }
    return percent_change > threshold_percent ? ChangeClass::kRegressed : ChangeClass::kNeutral;
  }
  if (in(MetricGroup::kThroughput)) {
    if (percent_change > threshold_percent) {
      return ChangeClass::kImproved;
    }
    return percent_change < -threshold_percent ? ChangeClass::kRegressed : ChangeClass::kNeutral;
  }
  return ChangeClass::kNeutral;
}

Comparison compareResults(const ResultsTable& before, const ResultsTable& after,
                          double threshold_percent) {
  if (!std::isfinite(threshold_percent) || threshold_percent < 0.0) {
    throw std::invalid_argument("the change threshold must be a non-negative percentage, got " +
                                formatMetricValue(threshold_percent));
  }
  Comparison comparison;
  comparison.threshold_percent = threshold_percent;
  const std::vector<RunRows> before_runs = groupRuns(before);
  const std::vector<RunRows> after_runs = groupRuns(after);

  std::vector<std::string> scenario_order;
  std::vector<std::string> approach_order;
  for (const RunRows& run : before_runs) {
    if (firstIndexOf(scenario_order, run.scenario) == scenario_order.size()) {
      scenario_order.push_back(run.scenario);
    }
    if (firstIndexOf(approach_order, run.approach) == approach_order.size()) {
      approach_order.push_back(run.approach);
    }
  }
  std::vector<std::pair<const RunRows*, const RunRows*>> matched;
  for (const RunRows& run : before_runs) {
    if (const RunRows* other = findRun(after_runs, run)) {
      matched.emplace_back(&run, other);
    } else {
      comparison.only_before.push_back({run.scenario, run.approach});
    }
  }
  for (const RunRows& run : after_runs) {
    if (findRun(before_runs, run) == nullptr) {
      comparison.only_after.push_back({run.scenario, run.approach});
    }
  }
  std::stable_sort(matched.begin(), matched.end(), [&](const auto& a, const auto& b) {
    const auto key = [&](const RunRows& run) {
      return std::pair(firstIndexOf(scenario_order, run.scenario),
                       firstIndexOf(approach_order, run.approach));
    };
    return key(*a.first) < key(*b.first);
  });

  for (const MetricGroup group_kind : {MetricGroup::kThroughput, MetricGroup::kLatency}) {
    GroupComparison& group = comparison.groups.emplace_back();
    group.group = group_kind;
    for (const auto& [before_run, after_run] : matched) {
      for (const std::string& metric : groupMetrics(group_kind)) {
        const auto before_column = before.metricIndex(metric);
        const auto after_column = after.metricIndex(metric);
        if (!before_column || !after_column) {
          continue;
        }
        MetricChange change;
        change.scenario = before_run->scenario;
        change.approach = before_run->approach;
        change.metric = metric;
        const std::vector<double> before_values = valuesOf(before, *before_run, *before_column);
        const std::vector<double> after_values = valuesOf(after, *after_run, *after_column);
        change.runs_before = before_run->rows.size();
        change.runs_after = after_run->rows.size();
        if (stats::smallestPossiblePValue(before_values.size(), after_values.size()) < 0.05) {
          testChange(change, before_values, after_values, threshold_percent);
        } else {
          change.before = meanOf(before, *before_run, *before_column);
          change.after = meanOf(after, *after_run, *after_column);
          change.absolute_change = change.after - change.before;
          change.percent_change =
              change.before == 0.0 ? kNaN : (change.after - change.before) / change.before * 100.0;
          change.change = classifyChange(metric, change.percent_change, threshold_percent);
        }
        group.changes.push_back(std::move(change));
      }
    }
    summarise(group);
  }
  return comparison;
}

void writeComparisonMarkdown(std::ostream& out, const Comparison& comparison,
                             const ComparisonSource& before, const ComparisonSource& after) {
  const auto modified = [](const ComparisonSource& source) {
    return source.modified.empty() ? std::string("unknown") : source.modified;
  };
  out << "# Benchmark Comparison Report\n\n"
      << "| role | path | last modified |\n"
      << "|---|---|---|\n"
      << "| before | " << markdownCell(before.path) << " | " << modified(before) << " |\n"
      << "| after | " << markdownCell(after.path) << " | " << modified(after) << " |\n\n"
      << "A change beyond ±" << twoDecimals(comparison.threshold_percent)
      << " % counts as improved (✅) or regressed (❌), otherwise neutral (➖). Throughput: higher "
         "is better; latency: lower is better. Repeated runs of a scenario and approach are "
         "averaged";
  const bool any_tested = std::any_of(
      comparison.groups.begin(), comparison.groups.end(), [](const GroupComparison& group) {
        return std::any_of(group.changes.begin(), group.changes.end(),
                           [](const MetricChange& change) { return change.tested; });
      });
  if (any_tested) {
    out << ", except where both sides have at least 4 runs: there before and after are medians, "
           "a change counts only when it is significantly beyond the threshold (the Mann–Whitney "
           "U test of the runs after against the runs before moved by the threshold gives "
           "p < 0.05), otherwise it is `~` (no change beyond the threshold that the runs show), "
           "and its 95 % interval is shown";
  }
  out << ".\n";
  for (const GroupComparison& group : comparison.groups) {
    out << "\n## " << groupName(group.group) << " metrics\n\n"
        << "- Overall change: **" << twoDecimals(group.mean_percent_change) << " %**\n"
        << "- Standard deviation: " << twoDecimals(group.stddev_percent_change) << " %\n"
        << "- " << group.improved << " improved, " << group.regressed << " regressed, "
        << group.neutral << " neutral\n\n";
    if (group.changes.empty()) {
      out << "Nothing to compare: no scenario and approach with these metrics in both files.\n";
      continue;
    }
    out << "| impact | scenario | approach | metric | before | after | change (%) | change "
           "(abs) |"
        << (any_tested ? " 95 % interval (%) | p | runs |" : "") << "\n"
        << "|---|---|---|---|---:|---:|---:|---:|" << (any_tested ? "---:|---:|---:|" : "") << "\n";
    for (const MetricChange& change : group.changes) {
      const bool unchanged = change.tested && change.change == ChangeClass::kNeutral;
      out << "| " << (unchanged ? std::string_view("~") : impactSymbol(change.change)) << " | "
          << markdownCell(change.scenario) << " | " << markdownCell(change.approach) << " | "
          << shortMetricName(change.metric) << " | " << meanText(change.before) << " | "
          << meanText(change.after) << " | " << twoDecimals(change.percent_change) << " | "
          << twoDecimals(change.absolute_change) << " |";
      if (any_tested) {
        if (change.tested) {
          out << " " << twoDecimals(change.percent_low) << " to "
              << twoDecimals(change.percent_high) << " | " << formatPValue(change.p_value) << " | "
              << change.runs_before << " / " << change.runs_after << " |";
        } else {
          out << " | | " << change.runs_before << " / " << change.runs_after << " |";
        }
      }
      out << "\n";
    }
  }
  if (!comparison.only_before.empty() || !comparison.only_after.empty()) {
    out << "\n## Not compared\n\n";
    writeUnmatched(out, "before", comparison.only_before);
    writeUnmatched(out, "after", comparison.only_after);
  }
}

}  // namespace benchd::results
