#include <benchd/results/metric_format.hpp>
#include <benchd/results/statistics.hpp>
#include <benchd/results/winner_decision.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace benchd::results {
namespace {

/// The runs of each (scenario, approach): row pointers into the table, in run order.
struct PairRuns {
  std::string scenario;
  std::string approach;
  std::vector<const ResultsRow*> rows;
};

std::vector<PairRuns> groupRuns(const ResultsTable& runs) {
  std::vector<PairRuns> pairs;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const ResultsRow& row : runs.rows()) {
    const auto [found, inserted] = index.try_emplace({row.scenario, row.approach}, pairs.size());
    if (inserted) {
      pairs.push_back({row.scenario, row.approach, {}});
    }
    pairs[found->second].rows.push_back(&row);
  }
  return pairs;
}

/// The pair's values of one metric, one per run. A NaN (a run that measured nothing there) has
/// no rank and is left out; a pair of only NaNs has no samples and a NaN median.
std::vector<double> samplesOf(const ResultsTable& runs, const PairRuns& pair, std::size_t metric) {
  std::vector<double> values;
  for (const ResultsRow* row : pair.rows) {
    const double value = runs.number(*row, metric);
    if (!std::isnan(value)) {
      values.push_back(value);
    }
  }
  return values;
}

std::string percentText(double share) {
  if (std::isinf(share)) {
    return "inf";
  }
  return formatMetricValue(100.0 * share) + " %";
}

/// Marks the won host-wide cells of busy scenarios undecided; true when any scenario is busy.
bool excludeBusyHostCells(WinnersGrid& grid,
                          const std::vector<std::pair<std::string, double>>& busy_scenarios) {
  for (const auto& [scenario_name, share] : busy_scenarios) {
    const auto scenario = static_cast<std::size_t>(
        std::find(grid.scenarios.begin(), grid.scenarios.end(), scenario_name) -
        grid.scenarios.begin());
    if (scenario == grid.scenarios.size()) {
      continue;
    }
    for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
      WinnersCell& cell = grid.cells[metric][scenario];
      if (cell.outcome == CellOutcome::kWin && isHostWideMetric(grid.metrics[metric])) {
        cell.outcome = CellOutcome::kUndecided;
        cell.winner.clear();
        cell.alpha = 0.0;
        cell.verdict = "not ranked: measured on a busy host (other processes used up to " +
                       formatMetricValue(share) + " % of its CPUs on average)";
      }
    }
  }
  return !busy_scenarios.empty();
}

/// A cell to test: where it is, and its two samples.
struct TestedCell {
  WinnersCell* cell = nullptr;
  std::string metric;
  std::vector<double> top;
  std::vector<double> runner_up;
};

}  // namespace

std::string_view winnerRuleName(WinnerRule rule) {
  return rule == WinnerRule::kOriginal ? "original" : "significant";
}

std::optional<WinnerRule> winnerRuleFromName(std::string_view name) {
  if (name == "significant") {
    return WinnerRule::kSignificant;
  }
  if (name == "original") {
    return WinnerRule::kOriginal;
  }
  return std::nullopt;
}

bool isHostWideMetric(std::string_view metric) {
  const std::string prefix = metricPrefix(metric);
  return (prefix == "cpu" && metric.find("percent") != std::string_view::npos) || prefix == "ram" ||
         prefix == "sockets" || prefix == "network";
}

NoiseThreshold noiseThreshold(std::string_view metric, double relative) {
  NoiseThreshold threshold{0.0, relative};
  const std::string prefix = metricPrefix(metric);
  if (prefix == "cpu" && metric.find("percent") != std::string_view::npos) {
    // /proc/stat counts 10 ms ticks: one second of a core is 100 of them, so host CPU shares
    // move in steps of about a percent and a lead below that is not a measurement.
    threshold.absolute = 1.0;
  } else if (prefix == "ram") {
    threshold.absolute = 0.1;  // percent of the host's memory, which other processes move too
  } else if (prefix == "os" || prefix == "sockets") {
    threshold.absolute = 1.0;  // counts: a lead of less than one thread or socket is none
  } else if (prefix == "latency") {
    threshold.absolute = 0.01;  // the histogram's and results.csv's resolution below 10 ms
  }
  return threshold;
}

ResultsTable medianTable(const ResultsTable& runs) {
  ResultsTable medians(runs.metricNames());
  for (const PairRuns& pair : groupRuns(runs)) {
    ResultsRow row;
    row.scenario = pair.scenario;
    row.approach = pair.approach;
    for (std::size_t metric = 0; metric < runs.metricNames().size(); ++metric) {
      const std::vector<double> values = samplesOf(runs, pair, metric);
      row.cells.push_back(pair.rows.size() == 1 ? pair.rows.front()->cells[metric]
                                                : formatMetricValue(stats::median(values)));
    }
    medians.addRow(std::move(row));
  }
  return medians;
}

WinnersGrid decideWinners(const ResultsTable& runs, const std::vector<std::string>& approaches,
                          const DecisionSettings& settings) {
  const std::vector<PairRuns> pairs = groupRuns(runs);
  WinnersGrid grid = computeWinners(medianTable(runs), approaches);
  const auto pairOf = [&pairs](const std::string& scenario,
                               const std::string& approach) -> const PairRuns* {
    for (const PairRuns& pair : pairs) {
      if (pair.scenario == scenario && pair.approach == approach) {
        return &pair;
      }
    }
    return nullptr;
  };

  // Every ranked entry gets its runs and the median's interval.
  bool any_pair = false;
  grid.min_runs = 0;
  grid.max_runs = 0;
  std::vector<TestedCell> tested;
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      WinnersCell& cell = grid.cells[metric][scenario];
      for (RankedResult& result : cell.ranked) {
        const PairRuns* pair = pairOf(grid.scenarios[scenario], result.approach);
        const std::vector<double> samples = samplesOf(runs, *pair, metric);
        const stats::MedianInterval interval = stats::medianInterval(samples, 0.95);
        result.runs = pair->rows.size();
        result.low = interval.low;
        result.high = interval.high;
        result.coverage = interval.coverage;
        if (!samples.empty()) {
          const auto [lowest, highest] = std::minmax_element(samples.begin(), samples.end());
          result.lowest = *lowest;
          result.highest = *highest;
        }
        grid.min_runs = any_pair ? std::min(grid.min_runs, result.runs) : result.runs;
        grid.max_runs = std::max(grid.max_runs, result.runs);
        any_pair = true;
      }
      if (cell.outcome == CellOutcome::kWin && cell.ranked.size() >= 2 &&
          !cell.ranked[0].has_errors && !cell.ranked[1].has_errors) {
        const PairRuns* top = pairOf(grid.scenarios[scenario], cell.ranked[0].approach);
        const PairRuns* runner_up = pairOf(grid.scenarios[scenario], cell.ranked[1].approach);
        tested.push_back({&cell, grid.metrics[metric], samplesOf(runs, *top, metric),
                          samplesOf(runs, *runner_up, metric)});
      }
    }
  }
  if (!any_pair) {
    grid.min_runs = grid.max_runs = 0;
  }

  // Testable when some pair has the runs to reach alpha; a cell whose pairs have fewer (a run
  // stopped mid-round) cannot, and stays undecided.
  const bool testable =
      any_pair && stats::smallestPossiblePValue(grid.max_runs, grid.max_runs) < settings.alpha;
  const bool busy = excludeBusyHostCells(grid, settings.busy_scenarios);
  if (settings.rule == WinnerRule::kOriginal || !testable) {
    if (busy) {
      recountStandings(grid);
    }
    grid.rule = std::string(winnerRuleName(WinnerRule::kOriginal));
    grid.confirmed = false;
    const std::string runs_text =
        grid.min_runs == grid.max_runs
            ? std::to_string(grid.max_runs) + (grid.max_runs == 1 ? " run" : " runs")
            : std::to_string(grid.min_runs) + " to " + std::to_string(grid.max_runs) + " runs";
    grid.rule_note =
        "Unconfirmed leads: the original's rule (any lead wins), on " + runs_text +
        " per approach" + (grid.max_runs > 1 ? " (their medians)" : "") + ". " +
        (settings.rule == WinnerRule::kOriginal
             ? std::string("Asked for with --winners original; ")
             : "Too few runs to test a difference (the U test needs at least 4 runs of each "
               "approach to reach p < 0.05; run with --repeat 5 or more); ") +
        "a lead here may be noise: the same plugin run twice under two names wins about half "
        "of such cells.";
    return grid;
  }

  // Cells a busy host took out of the ranking are not tested.
  tested.erase(std::remove_if(tested.begin(), tested.end(),
                              [](const TestedCell& entry) {
                                return entry.cell->outcome != CellOutcome::kWin;
                              }),
               tested.end());
  std::vector<double> p_values;
  for (TestedCell& entry : tested) {
    entry.cell->p_value = stats::mannWhitneyU(entry.top, entry.runner_up).p_value;
    p_values.push_back(entry.cell->p_value);
  }
  const stats::MultipleTestResult corrected = stats::benjaminiHochberg(p_values, settings.alpha);
  std::size_t tested_wins = 0;
  // How far the tested cells got, for the note: a reader who sees no winners learns which step
  // stopped them.
  std::size_t raw_significant = 0;
  std::size_t corrected_significant = 0;
  for (std::size_t index = 0; index < tested.size(); ++index) {
    raw_significant += tested[index].cell->p_value < settings.alpha ? 1U : 0U;
    corrected_significant += corrected.rejected[index] ? 1U : 0U;
  }
  for (std::size_t index = 0; index < tested.size(); ++index) {
    TestedCell& entry = tested[index];
    WinnersCell& cell = *entry.cell;
    cell.adjusted_p_value = corrected.adjusted[index];
    const stats::RatioInterval ratio = stats::bootstrapMedianRatio(
        entry.top, entry.runner_up, 0.95, 2000, settings.bootstrap_seed + index);
    const bool excludes_one = ratio.low > 1.0 || ratio.high < 1.0;
    cell.lead_low =
        excludes_one ? std::min(std::abs(ratio.low - 1.0), std::abs(ratio.high - 1.0)) : 0.0;
    cell.lead_high = std::max(std::abs(ratio.low - 1.0), std::abs(ratio.high - 1.0));
    if (std::isnan(cell.lead_high)) {
      cell.lead_low = cell.lead_high = 0.0;
    }
    const NoiseThreshold threshold = noiseThreshold(entry.metric, settings.relative_noise);
    const double difference = std::abs(cell.ranked[0].value - cell.ranked[1].value);
    const std::string evidence = "p = " + formatPValue(cell.p_value) + ", adjusted " +
                                 formatPValue(cell.adjusted_p_value) + "; lead " +
                                 percentText(cell.lead) + ", 95 % interval " +
                                 percentText(cell.lead_low) + " to " + percentText(cell.lead_high);
    std::string refused;
    if (!corrected.rejected[index]) {
      refused = "no significant difference";
    } else if (!(cell.lead_low > threshold.relative)) {
      refused = "lead within the noise threshold of " + percentText(threshold.relative);
    } else if (!(difference > threshold.absolute)) {
      refused = "difference below the measurement's resolution (" +
                formatMetricValue(threshold.absolute) + ")";
    }
    if (refused.empty()) {
      ++tested_wins;
      cell.alpha = leadAlpha(cell.lead_low);
      cell.verdict = evidence;
    } else {
      cell.outcome = CellOutcome::kUndecided;
      cell.winner.clear();
      cell.alpha = 0.0;
      cell.verdict = refused + " (" + evidence + ")";
    }
  }
  recountStandings(grid);
  grid.rule = std::string(winnerRuleName(WinnerRule::kSignificant));
  grid.confirmed = true;
  grid.expected_false_winners = settings.alpha * static_cast<double>(tested_wins);
  const std::string runs_text =
      grid.min_runs == grid.max_runs
          ? std::to_string(grid.max_runs)
          : std::to_string(grid.min_runs) + " to " + std::to_string(grid.max_runs);
  grid.rule_note =
      "Winners that are significant: " + runs_text +
      " runs per approach; a cell is won when the Mann–Whitney U test over the runs gives p < " +
      formatMetricValue(settings.alpha) + " after the Benjamini–Hochberg step across the grid's " +
      std::to_string(tested.size()) +
      " tested cells, and the 95 % bootstrap interval of the lead clears the noise threshold (" +
      percentText(settings.relative_noise) +
      ", and the measurement's resolution); otherwise no significant difference (" +
      std::to_string(grid.undecided) + " cells). Of the tested cells " +
      std::to_string(raw_significant) + " had p < " + formatMetricValue(settings.alpha) +
      " before the correction, " + std::to_string(corrected_significant) + " after it, and " +
      std::to_string(tested_wins) +
      " also cleared the noise threshold. Expected false winners: at most " +
      formatMetricValue(grid.expected_false_winners) + " of the " + std::to_string(tested_wins) +
      " tested wins (false-discovery rate " + formatMetricValue(settings.alpha) +
      "). Medians with 95 % intervals from order statistics.";
  return grid;
}

WinnersGrid decideRunWinners(const std::vector<SummaryRow>& runs,
                             const std::vector<std::string>& approaches, WinnerRule rule) {
  DecisionSettings settings;
  settings.rule = rule;
  for (const SummaryRow& run : runs) {
    if (!busyHost(run.diagnostics)) {
      continue;
    }
    auto found = std::find_if(settings.busy_scenarios.begin(), settings.busy_scenarios.end(),
                              [&run](const auto& busy) { return busy.first == run.scenario; });
    if (found == settings.busy_scenarios.end()) {
      settings.busy_scenarios.emplace_back(run.scenario, run.diagnostics.other_cpu_percent_avg);
    } else {
      found->second = std::max(found->second, run.diagnostics.other_cpu_percent_avg);
    }
  }
  return decideWinners(toResultsTable(runs), approaches, settings);
}

}  // namespace benchd::results
