#pragma once

#include <benchd/results/results_table.hpp>
#include <benchd/results/winners.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::results {

/// How a winners grid decides its cells (docs/metrics-and-ranking.md#deciding-a-winner).
enum class WinnerRule : std::uint8_t {
  /// A lead is a win only when it is statistically significant over repeated runs and larger
  /// than the metric's noise threshold; needs at least 4 runs per approach (5 or more advised).
  kSignificant = 1,
  /// The original's rule on one value per approach (with repeats, the median): any lead wins.
  /// Its wins are unconfirmed leads.
  kOriginal,
};
[[nodiscard]] std::string_view winnerRuleName(WinnerRule rule);
[[nodiscard]] std::optional<WinnerRule> winnerRuleFromName(std::string_view name);

/// What a difference must exceed, besides significance, to count: `absolute` is the
/// measurement's resolution in the metric's unit (a tick-sampled CPU percentage cannot separate
/// 1.24 from 1.30), `relative` the share of the runner-up's value that A/A runs (the same plugin
/// twice) show as noise.
struct NoiseThreshold {
  double absolute = 0.0;
  double relative = 0.0;
};

/// The threshold of `metric` for a relative noise threshold of `relative` (its absolute part
/// comes from how the metric is measured: docs/metrics-and-ranking.md#noise-thresholds).
[[nodiscard]] NoiseThreshold noiseThreshold(std::string_view metric, double relative);

struct DecisionSettings {
  WinnerRule rule = WinnerRule::kSignificant;
  /// The U test's level and the false-discovery rate of the Benjamini–Hochberg step across the
  /// grid's tested cells.
  double alpha = 0.05;
  /// The relative noise threshold: a lead whose 95 % interval does not clear it is no win.
  /// Default from A/A runs on a two-core machine (docs/metrics-and-ranking.md#noise-thresholds).
  double relative_noise = 0.03;
  /// Seeds the lead intervals' resampling: fixed, so the same runs give the same grid.
  std::uint64_t bootstrap_seed = 1;
  /// Scenarios measured on a busy host, each with the highest share of the CPUs the rest of the
  /// host used in any of its results: their host-wide cells (isHostWideMetric) are not ranked.
  std::vector<std::pair<std::string, double>> busy_scenarios;
};

/// Whether `metric` measures the whole host rather than the approach's processes (host CPU and
/// RAM, the host's TCP sockets, loopback traffic): another job on the machine moves it.
[[nodiscard]] bool isHostWideMetric(std::string_view metric);

/// One row per (scenario, approach) of `runs`, in first-appearance order, each metric the median
/// of that pair's rows (a row of `runs` is one run; repeats are rows with the same pair). The
/// cells are formatMetricValue's text of the medians, so this is the results.csv of a repeated
/// run, and a table without repeats comes back unchanged in value.
[[nodiscard]] ResultsTable medianTable(const ResultsTable& runs);

/// The winners grid of repeated runs. Ranking, draws, errors and colours are the original's
/// (computeWinners on medianTable(runs)); then, with WinnerRule::kSignificant, each cell won
/// between two error-free approaches is tested, top against runner-up over their runs:
///   - Mann–Whitney U, two-sided, over the per-run values (one run is one sample);
///   - Benjamini–Hochberg at `alpha` across every tested cell of the grid (a 250-cell grid at
///     α = 0.05 would otherwise call about 12 winners by chance);
///   - the 95 % bootstrap interval of the lead (ratio of medians, runs resampled) must clear the
///     metric's relative noise threshold, and the medians must differ by more than its absolute
///     one.
/// A cell that fails any of them is CellOutcome::kUndecided ("no significant difference"), with
/// the reason in its verdict; a win's colour saturation comes from the interval's lower bound.
/// A win by errors (the runner-up had errors, the top none) stands as in the original.
///
/// In a scenario of `busy_scenarios`, a host-wide cell that would be won is kUndecided with the
/// reason instead, under either rule.
///
/// When no pair has enough runs for the test to reach `alpha` (fewer than 4 each at 0.05), or
/// with WinnerRule::kOriginal, the grid is the original rule's on the medians, `confirmed` false
/// and its rule_note saying plainly that its wins are unconfirmed leads.
///
/// `approaches` as computeWinners. Pure function; deterministic for a given seed.
[[nodiscard]] WinnersGrid decideWinners(const ResultsTable& runs,
                                        const std::vector<std::string>& approaches,
                                        const DecisionSettings& settings = {});

/// The grid of a run's stored results (every round, SummaryRow order) under the rule the run
/// recorded, with the busy scenarios its diagnostics show (busyHost): the one call behind
/// results.md, `benchd run`'s standings, the REST API's winners and benchd-report.
[[nodiscard]] WinnersGrid decideRunWinners(const std::vector<SummaryRow>& runs,
                                           const std::vector<std::string>& approaches,
                                           WinnerRule rule);

}  // namespace benchd::results
