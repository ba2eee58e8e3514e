#pragma once

#include <benchd/results/results_table.hpp>

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::results {

/// The winners grid: which approach is best at each metric in each scenario, and who wins most
/// often. The original's rules exactly (its results_chart.py; stated in
/// docs/metrics-and-ranking.md#the-winners-grid), so a results.csv from either project ranks the
/// same. This is the one implementation; the CLI, results.md, the REST API and the PNG renderer
/// all render its WinnersGrid and compute nothing themselves.
///
/// The rules, in short:
///   - Direction: a metric name containing "error" is lower-is-better; otherwise the
///     prefix (text before the first '_', lower-cased) "requests" or "sockets" is
///     higher-is-better, and every other prefix lower-is-better.
///   - Cell (metric × scenario): the approaches of the set that have a row in the scenario,
///     sorted by (has_errors, value) with the value negated for higher-is-better; has_errors is
///     requests_error > 0 of that approach in that scenario (no such column, or an empty cell,
///     is no error). The sort is stable over the scenario's rows in file order. Values are the
///     cells as results.csv holds them, i.e. after formatMetricValue's rounding.
///   - Draw: the top two values are exactly equal, or both top two had errors; a cell with
///     one approach is a draw if it had errors. Otherwise the first is the winner (+1 win).
///   - Standings: descending wins, stable over the approach-set order; ranks 1, 2, 3, ...
///     without shared ranks. Percent = round(100·wins/contests), draw percent likewise, rounded
///     half to even like Python's round() (12.5 → 12, 37.5 → 38); they need not sum to 100.
///   - Lead = |top − runner-up| / runner-up: 0 when both are 0, +inf when only the
///     runner-up is 0. Alpha = round(1 − exp(−7·clamp(lead, 0, 1)), 2). A one-approach cell has
///     alpha 0. Colour: the top approach's, white when both top two had errors.
///
/// Beyond the original (which would fail or leave these undefined):
///   - A duplicate (scenario, approach) row: the last one counts, in the place of the first
///     (the original reads rows into a dict).
///   - A scenario where no approach of the set has a row gives empty cells (CellOutcome::kEmpty)
///     that are not contests.
///   - A NaN value ranks after every number of the same has_errors class, whatever the
///     direction; two NaNs are equal (a draw); a lead involving NaN is NaN with alpha 0.
///
/// Pure functions over values; safe to call from any thread.

enum class Direction { kLowerIsBetter = 1, kHigherIsBetter };

/// The text before the first '_', lower-cased ("Latency_millis_p50" → "latency").
[[nodiscard]] std::string metricPrefix(std::string_view metric);
/// Which value of `metric` is better (Direction above).
[[nodiscard]] Direction metricDirection(std::string_view metric);

/// |top − runner_up| / runner_up; 0 when both are 0, +inf when only runner_up is 0.
[[nodiscard]] double winningLead(double top, double runner_up);
/// round(1 − exp(−7·clamp(lead, 0, 1)), 2), rounded as Python's round(x, 2); NaN gives 0.
[[nodiscard]] double leadAlpha(double lead);
/// round(100·part/whole) half to even (Python's round()); 0 when whole is 0.
[[nodiscard]] int roundedPercent(std::size_t part, std::size_t whole);

/// The approaches' colours, as CSS/SVG colour names that Qt's QColor and matplotlib both
/// accept: loom-netty forestgreen, webflux-netty royalblue (the original's fixed pair); every
/// other approach, in `approaches` order, the next of kApproachPalette, cycling. The palette
/// starts with the original's goldenrod, maroon, black, so the original's files colour as they
/// did there; benchd's five or more approaches continue with further distinct colours before
/// the cycle repeats.
inline constexpr std::string_view kApproachPalette[] = {
    "goldenrod", "maroon", "black", "darkorchid", "darkcyan", "chocolate", "slategray"};
inline constexpr std::string_view kBothErrorsColour = "white";
[[nodiscard]] std::vector<std::string> approachColours(const std::vector<std::string>& approaches);
/// "#rrggbb" for the colour names above (palette, the two fixed ones and white); "" otherwise.
[[nodiscard]] std::string_view colourHex(std::string_view colour_name);

/// One approach's entry in a cell.
struct RankedResult {
  std::string approach;
  double value = 0.0;  ///< the number results.csv holds (with repeats: the median of the runs)
  std::string text;    ///< the cell text as results.csv holds it ("" shows as 0)
  bool has_errors = false;
  /// With repeats (winner_decision.hpp): how many runs, and the median's confidence interval
  /// (low = high = value for one run); `coverage` is the interval's real coverage probability.
  std::size_t runs = 1;
  double low = 0.0;
  double high = 0.0;
  double coverage = 0.0;
  /// The spread: the lowest and the highest run (= value for one run).
  double lowest = 0.0;
  double highest = 0.0;
};

enum class CellOutcome {
  kWin = 1,  ///< ranked.front() won this contest
  kDraw,     ///< a contest nobody won: equal values, or errors on both top two
  kEmpty,    ///< no approach of the set ran this scenario; not a contest
  /// A contest whose lead is not shown to be real: not significant, or within the metric's
  /// noise threshold (decideWinners with WinnerRule::kSignificant). Counts as no winner.
  kUndecided,
};

struct WinnersCell {
  CellOutcome outcome = CellOutcome::kEmpty;
  std::vector<RankedResult> ranked;  ///< best first; empty only for kEmpty
  std::string winner;                ///< ranked.front().approach for kWin, else ""
  bool both_top_errors = false;      ///< the top two (or the only one) had errors
  double lead = 0.0;                 ///< winningLead(top, runner-up); 0 for one approach
  double alpha = 0.0;                ///< leadAlpha(lead); 0 for one approach
  std::string colour;                ///< top's colour, kBothErrorsColour, or "" for kEmpty
  /// Filled by decideWinners with WinnerRule::kSignificant for a cell it tested (top against
  /// runner-up over their runs); NaN / 0 / empty otherwise. With the significant rule `alpha`
  /// comes from lead_low, the interval's lower bound, not from the point lead.
  double p_value = std::numeric_limits<double>::quiet_NaN();           ///< Mann–Whitney U
  double adjusted_p_value = std::numeric_limits<double>::quiet_NaN();  ///< Benjamini–Hochberg
  double lead_low = 0.0;  ///< 95 % bootstrap interval of the lead
  double lead_high = 0.0;
  std::string verdict;  ///< why the cell is as it is, one line for people

  /// ranked[0], or nullptr for kEmpty.
  [[nodiscard]] const RankedResult* top() const;
  /// ranked[1]; ranked[0] when only one approach ran (as the original); nullptr for kEmpty.
  [[nodiscard]] const RankedResult* runnerUp() const;
};

struct ApproachStanding {
  std::string approach;
  std::size_t rank = 0;  ///< 1 = most wins
  std::size_t wins = 0;
  int percent = 0;  ///< roundedPercent(wins, contests)
  std::string colour;
};

/// A (scenario, approach) with failed runs: the grid ranks it from the runs that completed (or
/// last, when none did), and shows it apart, so a worker its memory cap ended reads as the source
/// study's "OOM — did not complete" and not as a loser among the others.
struct IncompleteResult {
  std::string scenario;
  std::string approach;
  std::size_t failed_runs = 0;
  std::size_t runs = 0;
  /// Some failed run was ended at its memory cap (summary_row.hpp's endedOutOfMemory).
  bool out_of_memory = false;
  std::string reason;  ///< a failed run's reason: the first one out of memory, else the first
};

struct WinnersGrid {
  std::vector<std::string> approaches;  ///< the approach set, in its given (or sorted) order
  std::vector<std::string> scenarios;   ///< first-appearance order in the table
  std::vector<std::string> metrics;     ///< the table's metric columns, in order
  std::vector<Direction> directions;    ///< per metric
  /// cells[metric][scenario].
  std::vector<std::vector<WinnersCell>> cells;
  std::vector<ApproachStanding> standings;  ///< rank order, one per approach of the set
  std::size_t contests = 0;                 ///< cells that are not kEmpty
  std::size_t draws = 0;
  std::size_t undecided = 0;  ///< kUndecided cells
  /// roundedPercent(draws + undecided, contests): the "no winner" share
  int draw_percent = 0;

  /// How the cells were decided (winner_decision.hpp). computeWinners alone: the original's rule
  /// on one value per approach, which calls any lead a win (`confirmed` false).
  bool confirmed = false;
  std::string rule;       ///< "original" or "significant"
  std::string rule_note;  ///< one paragraph for people: the rule, runs, thresholds, false winners
  std::size_t min_runs = 1;  ///< the fewest and most runs of any (scenario, approach) in the grid
  std::size_t max_runs = 1;
  double expected_false_winners = 0.0;  ///< at most, under the rule (0 when not confirmed)
  /// The (scenario, approach)s with failed runs, in the runs' first-appearance order; filled by
  /// decideRunWinners (a results table alone does not say why a run has no values).
  std::vector<IncompleteResult> incomplete;

  [[nodiscard]] const WinnersCell& cell(std::size_t metric, std::size_t scenario) const {
    return cells.at(metric).at(scenario);
  }
  /// The standing of `approach`, or nullptr when it is not in the set.
  [[nodiscard]] const ApproachStanding* standing(std::string_view approach) const;
};

/// Ranks `table`. `approaches` is the approach set (the original's -a list), in the order that
/// breaks rank ties and assigns colours; empty means every approach of the table, sorted
/// alphabetically. An approach of the set without rows still gets a standing (0 wins); rows of
/// approaches outside the set are ignored. Throws std::invalid_argument for a duplicate name in
/// `approaches`.
[[nodiscard]] WinnersGrid computeWinners(const ResultsTable& table,
                                         const std::vector<std::string>& approaches = {});

/// Recounts `grid`'s wins, draws, undecided cells and standings from its cells (after a rule
/// changed some outcomes), by the same rules as computeWinners.
void recountStandings(WinnersGrid& grid);

}  // namespace benchd::results
