#include <benchd/results/metric_format.hpp>
#include <benchd/results/statistics.hpp>
#include <benchd/results/winner_decision.hpp>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
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

/// In a run with capacity rows (a kCapacityMetric column), a capacity scenario ranks only the
/// rate its searches found and the errors (which de-rank as anywhere): its other metrics were
/// measured at each approach's own capacity, different rates, so comparing them would charge
/// the approach that held more load; they are no contest (kEmpty, with the reason as verdict).
/// Fixed-load scenarios have no capacity contest.
void limitCapacityContests(WinnersGrid& grid, const ResultsTable& runs,
                           const std::vector<std::string>& lower_bounds) {
  const std::optional<std::size_t> capacity = runs.metricIndex(kCapacityMetric);
  if (!capacity) {
    return;
  }
  std::vector<std::string> searched;
  for (const ResultsRow& row : runs.rows()) {
    if (!std::isnan(runs.number(row, *capacity)) &&
        std::find(searched.begin(), searched.end(), row.scenario) == searched.end()) {
      searched.push_back(row.scenario);
    }
  }
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    const bool capacity_metric = grid.metrics[metric] == kCapacityMetric;
    const bool kept = capacity_metric || grid.metrics[metric] == "requests_error";
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      WinnersCell& cell = grid.cells[metric][scenario];
      const bool is_search =
          std::find(searched.begin(), searched.end(), grid.scenarios[scenario]) != searched.end();
      if (capacity_metric && !is_search) {
        cell = WinnersCell{};  // no search ran here: not a contest
      } else if (capacity_metric && cell.outcome != CellOutcome::kEmpty &&
                 std::find(lower_bounds.begin(), lower_bounds.end(), grid.scenarios[scenario]) !=
                     lower_bounds.end()) {
        cell.outcome = CellOutcome::kUndecided;
        cell.winner.clear();
        cell.alpha = 0.0;
        cell.verdict =
            "not ranked: a search stopped below the server's limit (the load "
            "generator saturated, or the highest rate held), so its rate is only a "
            "lower bound";
      } else if (is_search && !kept) {
        // Not a contest at all (so not counted among the grid's contests or its no-winners);
        // the values stay in results.md's details.
        cell = WinnersCell{};
        cell.verdict =
            "not ranked: a capacity scenario's metrics are measured at each "
            "approach's own capacity; its contest is " +
            std::string(kCapacityMetric);
      }
    }
  }
}

/// The relative noise threshold a lead in `metric` must exceed (see DecisionSettings).
double shareOf(std::string_view metric, const DecisionSettings& settings) {
  const double share = settings.noise.of(metric);
  return metric == kCapacityMetric ? std::max(share, settings.capacity_resolution) : share;
}

/// The values of two approaches' runs of one scenario, paired by round: the k-th run of each
/// is from round k (runs are stored in the order they ran, and every round runs every approach
/// once). A round where either run has no value (it failed) has no pair.
struct PairedRuns {
  std::vector<double> top;
  std::vector<double> other;
};

PairedRuns pairedRuns(const ResultsTable& runs, const PairRuns& top, const PairRuns& other,
                      std::size_t metric) {
  PairedRuns paired;
  for (std::size_t round = 0; round < std::min(top.rows.size(), other.rows.size()); ++round) {
    const double a = runs.number(*top.rows[round], metric);
    const double b = runs.number(*other.rows[round], metric);
    if (!std::isnan(a) && !std::isnan(b)) {
      paired.top.push_back(a);
      paired.other.push_back(b);
    }
  }
  return paired;
}

/// Per round, by how much `top` beats `other` beyond the noise threshold, in the metric's unit:
/// positive when top is better than other by more than the threshold's relative share of
/// other's value plus its absolute resolution. The threshold is part of the hypothesis: a
/// signed-rank test of these margins asks whether top leads by more than the noise, not merely
/// by something.
std::vector<double> marginsBeyondNoise(const PairedRuns& paired, Direction direction,
                                       const NoiseThreshold& threshold) {
  std::vector<double> margins;
  for (std::size_t round = 0; round < paired.top.size(); ++round) {
    const double top = paired.top[round];
    const double other = paired.other[round];
    margins.push_back(direction == Direction::kHigherIsBetter
                          ? top - other * (1.0 + threshold.relative) - threshold.absolute
                          : other - top * (1.0 + threshold.relative) - threshold.absolute);
  }
  return margins;
}

/// Per round, top's lead over `other` as a share of other's value (positive: top better).
std::vector<double> roundLeads(const PairedRuns& paired, Direction direction) {
  std::vector<double> leads;
  for (std::size_t round = 0; round < paired.top.size(); ++round) {
    const double top = paired.top[round];
    const double other = paired.other[round];
    if (other != 0.0) {
      leads.push_back(direction == Direction::kHigherIsBetter ? (top - other) / std::abs(other)
                                                              : (other - top) / std::abs(other));
    }
  }
  return leads;
}

/// A contested cell under test: the top against every other approach, each over their paired
/// rounds; the cell's p is the largest (an intersection–union test: the top wins only if it
/// beats each of them, which needs no further correction within the cell).
struct TestedCell {
  WinnersCell* cell = nullptr;
  bool was_draw = false;
  double p_value = 1.0;
  std::size_t rounds = 0;  ///< the fewest paired rounds against any other approach
  /// The fewest rounds that say anything (a non-zero margin) against any other approach: the
  /// cell's p cannot go below 2^-informative, whatever the data.
  std::size_t informative = 0;
  bool by_errors = false;      ///< a contest the top leads only by having fewer errors
  double lead_low = 0.0;       ///< the lowest lower bound of its leads' intervals
  double lead_high = 0.0;      ///< the runner-up lead's upper bound
  double lead_coverage = 0.0;  ///< that interval's real coverage
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
  const bool host_cpu_share = prefix == "cpu" && metric.find("percent") != std::string_view::npos;
  if (host_cpu_share || prefix == "os" || prefix == "sockets") {
    // Host CPU: /proc/stat counts 10 ms ticks, one second of a core is 100 of them, so host CPU
    // shares move in steps of about a percent and a lead below that is not a measurement.
    // Threads and sockets are counts: a lead of less than one is none.
    threshold.absolute = 1.0;
  } else if (prefix == "ram") {
    threshold.absolute = 0.1;  // percent of the host's memory, which other processes move too
  } else if (prefix == "latency") {
    threshold.absolute = 0.01;  // the histogram's and results.csv's resolution below 10 ms
  }
  return threshold;
}

ResultsTable medianTable(const ResultsTable& runs, ValueSpelling spelling) {
  const auto spelled =
      spelling == ValueSpelling::kExact ? formatExactMetricValue : formatMetricValue;
  ResultsTable medians(runs.metricNames());
  for (const PairRuns& pair : groupRuns(runs)) {
    ResultsRow row;
    row.scenario = pair.scenario;
    row.approach = pair.approach;
    for (std::size_t metric = 0; metric < runs.metricNames().size(); ++metric) {
      const std::vector<double> values = samplesOf(runs, pair, metric);
      // As the original writes it, also for a single run whose cells are exact: the
      // original's rule ranks written values, its rounding the tolerance of a draw.
      row.cells.push_back(spelled(pair.rows.size() == 1 ? runs.number(*pair.rows.front(), metric)
                                                        : stats::median(values)));
    }
    medians.addRow(std::move(row));
  }
  return medians;
}

namespace {

/// The pair of (scenario, approach), or nullptr.
const PairRuns* pairOf(const std::vector<PairRuns>& pairs, const std::string& scenario,
                       const std::string& approach) {
  for (const PairRuns& pair : pairs) {
    if (pair.scenario == scenario && pair.approach == approach) {
      return &pair;
    }
  }
  return nullptr;
}

/// Every ranked entry gets its runs, the median's interval and the spread; the grid its fewest
/// and most runs.
void describeRuns(WinnersGrid& grid, const ResultsTable& runs, const std::vector<PairRuns>& pairs) {
  bool any_pair = false;
  grid.min_runs = 0;
  grid.max_runs = 0;
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      for (RankedResult& result : grid.cells[metric][scenario].ranked) {
        const PairRuns* pair = pairOf(pairs, grid.scenarios[scenario], result.approach);
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
    }
  }
}

std::string runsText(const WinnersGrid& grid) {
  return grid.min_runs == grid.max_runs
             ? std::to_string(grid.max_runs)
             : std::to_string(grid.min_runs) + " to " + std::to_string(grid.max_runs);
}

/// The fewest rounds with which a paired one-sided test can reach `alpha` at all: 2^-n < alpha.
std::size_t fewestTestableRounds(double alpha) {
  std::size_t rounds = 1;
  while (std::ldexp(1.0, -static_cast<int>(rounds)) >= alpha && rounds < 64) {
    ++rounds;
  }
  return rounds;
}

/// The original rule's grid, labelled as unconfirmed leads and why.
void labelUnconfirmed(WinnersGrid& grid, const DecisionSettings& settings) {
  grid.rule = std::string(winnerRuleName(WinnerRule::kOriginal));
  grid.confirmed = false;
  grid.rule_note =
      "Unconfirmed leads: the original's rule (any lead wins), on " + runsText(grid) +
      (grid.max_runs == 1 ? " run" : " runs") + " per approach" +
      (grid.max_runs > 1 ? " (their medians)" : "") + ". " +
      (settings.rule == WinnerRule::kOriginal
           ? std::string("Asked for with --winners original; ")
           : "Too few rounds to test a difference (a paired test needs at least " +
                 std::to_string(fewestTestableRounds(settings.alpha)) +
                 " rounds of every approach to reach p < " + formatMetricValue(settings.alpha) +
                 "; run with --repeat " + std::to_string(fewestTestableRounds(settings.alpha)) +
                 " or more); ") +
      "a lead here may be noise: the same plugin run twice under two names wins about half "
      "of such cells.";
}

/// Tests one contested cell: its top against every other approach over their paired rounds.
TestedCell testCell(WinnersCell& cell, const std::string& scenario, const std::string& metric_name,
                    std::size_t metric, Direction direction, const ResultsTable& runs,
                    const std::vector<PairRuns>& pairs, const DecisionSettings& settings) {
  TestedCell tested;
  tested.cell = &cell;
  tested.was_draw = cell.outcome == CellOutcome::kDraw;
  const RankedResult& top = cell.ranked[0];
  const PairRuns* top_runs = pairOf(pairs, scenario, top.approach);
  const auto errors_metric = runs.metricIndex("requests_error");
  tested.p_value = 0.0;
  tested.rounds = std::numeric_limits<std::size_t>::max();
  tested.informative = std::numeric_limits<std::size_t>::max();
  tested.lead_low = std::numeric_limits<double>::infinity();
  for (std::size_t other = 1; other < cell.ranked.size(); ++other) {
    const PairRuns* other_runs = pairOf(pairs, scenario, cell.ranked[other].approach);
    std::vector<double> margins;
    std::size_t rounds = 0;
    if (cell.ranked[other].has_errors && !top.has_errors && errors_metric) {
      // A lead by errors is a contest of its own: the top must have fewer errors (failed runs
      // count theirs) in the rounds, not merely a lower median.
      const PairedRuns paired = pairedRuns(runs, *top_runs, *other_runs, *errors_metric);
      margins = marginsBeyondNoise(paired, Direction::kLowerIsBetter, {0.0, 0.0});
      rounds = paired.top.size();
      tested.by_errors = tested.by_errors || other == 1;
    } else {
      const PairedRuns paired = pairedRuns(runs, *top_runs, *other_runs, metric);
      margins = marginsBeyondNoise(paired, direction,
                                   noiseThreshold(metric_name, shareOf(metric_name, settings)));
      rounds = paired.top.size();
      const std::vector<double> leads = roundLeads(paired, direction);
      const stats::MedianInterval interval =
          leads.empty() ? stats::MedianInterval{} : stats::medianInterval(leads, 0.95);
      tested.lead_low = std::min(tested.lead_low, std::isnan(interval.low) ? 0.0 : interval.low);
      if (other == 1) {
        tested.lead_high = std::isnan(interval.high) ? 0.0 : interval.high;
        tested.lead_coverage = interval.coverage;
      }
    }
    const stats::SignedRankResult test = stats::wilcoxonSignedRank(margins);
    tested.rounds = std::min(tested.rounds, rounds);
    tested.informative = std::min(tested.informative, test.n);
    tested.p_value = std::max(tested.p_value, test.p_value);
  }
  if (std::isinf(tested.lead_low)) {
    tested.lead_low = 0.0;  // won by errors against everyone: no lead in the metric to show
  }
  return tested;
}

}  // namespace

WinnersGrid decideWinners(const ResultsTable& runs, const std::vector<std::string>& approaches,
                          const DecisionSettings& settings) {
  const std::vector<PairRuns> pairs = groupRuns(runs);
  std::size_t most_runs = 0;
  for (const PairRuns& pair : pairs) {
    most_runs = std::max(most_runs, pair.rows.size());
  }
  const bool testable = most_runs >= fewestTestableRounds(settings.alpha);
  // The significance rule ranks exact medians: the original's two decimals would make a draw of
  // leads its test can see (and test the wrong approach as the top). Its own rule ranks what it
  // writes.
  const bool exact = settings.rule == WinnerRule::kSignificant && testable;
  WinnersGrid grid = computeWinners(
      medianTable(runs, exact ? ValueSpelling::kExact : ValueSpelling::kAsTheOriginalWrites),
      approaches);
  if (exact) {
    // Ranked exactly, shown as results.csv writes the medians.
    for (auto& row : grid.cells) {
      for (WinnersCell& cell : row) {
        for (RankedResult& entry : cell.ranked) {
          entry.text = formatMetricValue(entry.value);
        }
      }
    }
  }
  limitCapacityContests(grid, runs, settings.capacity_lower_bounds);
  describeRuns(grid, runs, pairs);
  const bool busy = excludeBusyHostCells(grid, settings.busy_scenarios);
  if (settings.rule == WinnerRule::kOriginal || !testable) {
    if (busy || runs.metricIndex(kCapacityMetric)) {
      recountStandings(grid);
    }
    labelUnconfirmed(grid, settings);
    return grid;
  }

  // The family: every contested cell (won or drawn between approaches that are not both
  // erroring), draws included, so the filter that picks the family does not depend on the
  // p-values. Cells a busy host took out of the ranking are not tested.
  std::vector<TestedCell> tested;
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      WinnersCell& cell = grid.cells[metric][scenario];
      const bool contested =
          (cell.outcome == CellOutcome::kWin || cell.outcome == CellOutcome::kDraw) &&
          cell.ranked.size() >= 2 && !cell.both_top_errors;
      if (contested) {
        tested.push_back(testCell(cell, grid.scenarios[scenario], grid.metrics[metric], metric,
                                  grid.directions[metric], runs, pairs, settings));
      }
    }
  }
  // Tarone's rule: a cell whose p cannot reach alpha whatever its data (too few rounds that say
  // anything, e.g. equal error counts of 0 in every round) cannot be a discovery, and leaving it
  // out of the family does not depend on its p; it would only dilute the others.
  std::vector<double> p_values;
  std::vector<std::size_t> family_index(tested.size(), tested.size());
  for (std::size_t index = 0; index < tested.size(); ++index) {
    const TestedCell& entry = tested[index];
    if (std::ldexp(1.0, -static_cast<int>(std::min<std::size_t>(entry.informative, 1000))) <=
        settings.alpha) {
      family_index[index] = p_values.size();
      p_values.push_back(entry.p_value);
    }
  }
  const stats::MultipleTestResult corrected = stats::benjaminiHochberg(p_values, settings.alpha);
  std::size_t tested_wins = 0;
  std::size_t raw_significant = 0;
  for (std::size_t index = 0; index < tested.size(); ++index) {
    const TestedCell& entry = tested[index];
    WinnersCell& cell = *entry.cell;
    const bool in_family = family_index[index] < p_values.size();
    const bool rejected = in_family && corrected.rejected[family_index[index]];
    cell.p_value = entry.p_value;
    cell.adjusted_p_value = in_family ? corrected.adjusted[family_index[index]] : 1.0;
    cell.lead_low = std::max(0.0, entry.lead_low);
    cell.lead_high = entry.lead_high;
    raw_significant += entry.p_value < settings.alpha ? 1U : 0U;
    const std::string evidence =
        "p = " + formatPValue(cell.p_value) + " against every other approach over " +
        std::to_string(entry.rounds) + " paired rounds, adjusted " +
        formatPValue(cell.adjusted_p_value) +
        (entry.by_errors ? "; by errors"
                         : "; lead " + percentText(cell.lead) + ", interval " +
                               percentText(cell.lead_low) + " to " + percentText(cell.lead_high) +
                               " (" + percentText(entry.lead_coverage) + " coverage)");
    if (rejected) {
      ++tested_wins;
      cell.outcome = CellOutcome::kWin;
      cell.winner = cell.ranked[0].approach;
      cell.alpha = entry.by_errors ? leadAlpha(1.0) : leadAlpha(cell.lead_low);
      cell.verdict = (entry.by_errors ? "won by errors (" : "won (") + evidence + ")";
    } else {
      cell.outcome = entry.was_draw ? CellOutcome::kDraw : CellOutcome::kUndecided;
      cell.winner.clear();
      cell.alpha = 0.0;
      cell.verdict = in_family
                         ? "no lead beyond the noise threshold shown against every other "
                           "approach (" +
                               evidence + ")"
                         : "cannot be significant: only " + std::to_string(entry.informative) +
                               " rounds differ beyond the noise threshold (" + evidence + ")";
    }
  }
  recountStandings(grid);
  grid.rule = std::string(winnerRuleName(WinnerRule::kSignificant));
  grid.confirmed = true;
  grid.expected_false_winners = settings.alpha * static_cast<double>(tested_wins);
  const std::size_t rounds = grid.max_runs;
  const double smallest_p = std::ldexp(1.0, -static_cast<int>(rounds));
  grid.rule_note =
      "Winners that are significant: " + runsText(grid) +
      " rounds per approach, each round running every approach once. A cell is won when its "
      "top beats every other approach by more than the metric's noise threshold (" +
      noiseThresholdsText(settings.noise) +
      "; and the measurement's resolution; part of the hypothesis) in a one-sided exact Wilcoxon "
      "signed-rank test over the paired rounds (the cell's p is the largest against any other "
      "approach), with p below " +
      formatMetricValue(settings.alpha) + " after the Benjamini–Hochberg step across the grid's " +
      std::to_string(p_values.size()) + " contested cells that can reach it (of " +
      std::to_string(tested.size()) +
      " contested: a cell whose rounds are too few or all equal beyond the threshold cannot, "
      "Tarone's rule); a lead by errors is tested on the errors. Otherwise no significant "
      "difference (" +
      std::to_string(grid.undecided) + " cells). Of the contested cells " +
      std::to_string(raw_significant) + " had p < " + formatMetricValue(settings.alpha) +
      " before the correction and " + std::to_string(tested_wins) +
      " after it. The step keeps the expected share of false wins at most " +
      percentText(settings.alpha) +
      ", assuming the one-sided tests of metrics measured on the same runs are positively "
      "dependent (PRDS). With " +
      std::to_string(rounds) + " rounds the smallest p is " + formatPValue(smallest_p) +
      ", so a difference in only one of the " + std::to_string(p_values.size()) +
      " cells can be called only if " + formatPValue(smallest_p) +
      " is at most alpha divided by the number of cells. Medians with intervals from order "
      "statistics (their coverage is stated; below 6 runs it is under 95 %).";
  return grid;
}

std::string detectableLeadText(std::uint32_t rounds, std::size_t cells,
                               const DecisionSettings& settings) {
  const std::size_t fewest = fewestTestableRounds(settings.alpha);
  if (rounds < fewest) {
    return std::to_string(rounds) + (rounds == 1 ? " round" : " rounds") +
           ": too few to test a lead (a paired test needs " + std::to_string(fewest) +
           " to reach p < " + formatMetricValue(settings.alpha) +
           "); the grid will show the original rule's unconfirmed leads.";
  }
  const double smallest_p = std::ldexp(1.0, -static_cast<int>(rounds));
  std::size_t lone_rounds = fewest;
  while (std::ldexp(1.0, -static_cast<int>(lone_rounds)) >
             settings.alpha / static_cast<double>(std::max<std::size_t>(1, cells)) &&
         lone_rounds < 64) {
    ++lone_rounds;
  }
  const bool lone_ok = rounds >= lone_rounds;
  return std::to_string(rounds) + " rounds: a cell is called when its top leads every other " +
         "approach by more than the noise threshold in enough rounds (the smallest p is " +
         formatPValue(smallest_p) + "). A lead that only one of up to " + std::to_string(cells) +
         " cells shows " + (lone_ok ? "can" : "cannot") + " be called (that needs " +
         std::to_string(lone_rounds) +
         " rounds, every one of them beyond the threshold); leads that many cells show need "
         "fewer. Smallest lead per metric: above its noise threshold (" +
         noiseThresholdsText(settings.noise) +
         ") of the other approach's value, and above the resolution: 1 percentage point for host "
         "CPU, 0.1 for host RAM, 0.01 ms for latency, 1 thread or socket.";
}

std::string noiseThresholdsText(const NoiseThresholds& noise) {
  const auto [low, high] = std::minmax_element(noise.share.begin(), noise.share.end());
  std::string text;
  if (*low == *high) {
    text = percentText(*low) + " for every metric";
  } else {
    const auto name = [&noise](const double* at) {
      return std::string(kMetricNames[static_cast<std::size_t>(at - noise.share.data())]);
    };
    text = "per metric, from " + percentText(*low) + " (" + name(&*low) + ") to " +
           percentText(*high) + " (" + name(&*high) + ")";
  }
  return noise.source.empty() ? text : text + ", " + noise.source;
}

namespace {

/// Every (scenario, approach) of `runs` with a failed run, in first-appearance order.
std::vector<IncompleteResult> incompleteResults(const std::vector<SummaryRow>& runs) {
  std::vector<IncompleteResult> pairs;
  for (const SummaryRow& run : runs) {
    auto pair = std::find_if(pairs.begin(), pairs.end(), [&run](const IncompleteResult& known) {
      return known.scenario == run.scenario && known.approach == run.approach;
    });
    if (pair == pairs.end()) {
      IncompleteResult added;
      added.scenario = run.scenario;
      added.approach = run.approach;
      pairs.push_back(std::move(added));
      pair = std::prev(pairs.end());
    }
    ++pair->runs;
    if (!run.failed) {
      continue;
    }
    ++pair->failed_runs;
    const bool out_of_memory = endedOutOfMemory(run);
    if (pair->reason.empty() || (out_of_memory && !pair->out_of_memory)) {
      pair->reason = run.failure_reason;
    }
    pair->out_of_memory = pair->out_of_memory || out_of_memory;
  }
  std::erase_if(pairs, [](const IncompleteResult& pair) { return pair.failed_runs == 0; });
  return pairs;
}

}  // namespace

WinnersGrid decideRunWinners(const std::vector<SummaryRow>& runs,
                             const std::vector<std::string>& approaches, WinnerRule rule,
                             const NoiseThresholds& noise) {
  DecisionSettings settings;
  settings.rule = rule;
  settings.noise = noise;
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
  for (const SummaryRow& run : runs) {
    if (run.capacity) {
      settings.capacity_resolution =
          std::max(settings.capacity_resolution, run.capacity->resolution);
    }
    if (run.capacity && run.capacity->lowerBound() &&
        std::find(settings.capacity_lower_bounds.begin(), settings.capacity_lower_bounds.end(),
                  run.scenario) == settings.capacity_lower_bounds.end()) {
      settings.capacity_lower_bounds.push_back(run.scenario);
    }
  }
  WinnersGrid grid =
      decideWinners(toResultsTable(runs, ValueSpelling::kExact), approaches, settings);
  grid.incomplete = incompleteResults(runs);
  return grid;
}

}  // namespace benchd::results
