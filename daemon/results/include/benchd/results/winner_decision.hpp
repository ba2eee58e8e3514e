#pragma once

#include <benchd/results/noise_thresholds.hpp>
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
/// decideWinners takes `relative` from DecisionSettings::noise.
[[nodiscard]] NoiseThreshold noiseThreshold(std::string_view metric, double relative);

struct DecisionSettings {
  WinnerRule rule = WinnerRule::kSignificant;
  /// The tests' level and the false-discovery rate of the Benjamini–Hochberg step across the
  /// grid's contested cells.
  double alpha = 0.05;
  /// Per metric, the share of the other approach's value a lead must exceed in the rounds for
  /// the test to call it. Default: those measured by A/A runs on a two-core machine
  /// (shippedNoiseThresholds, docs/metrics-and-ranking.md#noise-thresholds).
  NoiseThresholds noise = shippedNoiseThresholds();
  /// Scenarios measured on a busy host, each with the highest share of the CPUs the rest of the
  /// host used in any of its results: their host-wide cells (isHostWideMetric) are not ranked.
  std::vector<std::pair<std::string, double>> busy_scenarios;
  /// Capacity scenarios where some search stopped below the server's limit (the load generator
  /// saturated, or the highest rate held; CapacityResult::lowerBound): their capacity cell is
  /// not ranked, since a lower bound cannot be told from another.
  std::vector<std::string> capacity_lower_bounds;
  /// The coarsest resolution the run's capacity searches stopped at (a share): a lead in
  /// kCapacityMetric must exceed it as well as the metric's noise threshold, since two searches
  /// of the same server may end anywhere within it, and warm starts repeat where they end.
  double capacity_resolution = 0.0;
};

/// Whether `metric` measures the whole host rather than the approach's processes (host CPU and
/// RAM, the host's TCP sockets, loopback traffic): another job on the machine moves it.
[[nodiscard]] bool isHostWideMetric(std::string_view metric);

/// One row per (scenario, approach) of `runs`, in first-appearance order, each metric the median
/// of that pair's rows (a row of `runs` is one run; repeats are rows with the same pair). The
/// cells are spelled as `spelling` says: as the original writes them (results.csv of a repeated
/// run; a table without repeats comes back unchanged in value), or exact (what the
/// significance rule ranks: two decimals would tie a CPU per request of 0.038 ms with 0.042 ms).
[[nodiscard]] ResultsTable medianTable(
    const ResultsTable& runs, ValueSpelling spelling = ValueSpelling::kAsTheOriginalWrites);

/// The winners grid of repeated runs. Ranking by medians, errors and colours are the
/// original's (computeWinners on medianTable(runs), the medians exact under the significance
/// rule and as the original writes them under its own); then, with WinnerRule::kSignificant, every
/// contested cell (won or drawn, unless both top approaches had errors) is tested as a paired
/// design: the k-th run of each approach is from round k, and every round ran every approach.
///   - Per round, the top's margin over another approach beyond the noise threshold (its
///     relative share and the metric's resolution: noiseThreshold), so the threshold is part of
///     the hypothesis; a one-sided exact Wilcoxon signed-rank test of those margins.
///   - The top must beat every other approach: the cell's p is the largest of those tests (an
///     intersection–union test). A lead by errors (the other approach had errors, the top none)
///     is tested on requests_error the same way.
///   - Benjamini–Hochberg at `alpha` across the contested cells (valid for positively dependent
///     one-sided tests, which metrics measured on the same runs are assumed to be).
/// A won cell that fails is CellOutcome::kUndecided ("no significant difference"), a drawn one
/// stays a draw; the verdict says why. A win's colour saturation comes from the lowest lower
/// bound of its leads' order-statistic intervals. Runs with no value (failed runs) leave their
/// round out of the pair.
///
/// In a scenario of `busy_scenarios`, a host-wide cell that would be won is kUndecided with the
/// reason instead, under either rule.
///
/// When no pair has enough rounds for the test to reach `alpha` (fewer than 5 at 0.05: the
/// smallest one-sided p of n rounds is 2^-n), or with WinnerRule::kOriginal, the grid is the
/// original rule's on the medians, `confirmed` false and its rule_note saying plainly that its
/// wins are unconfirmed leads.
///
/// `approaches` as computeWinners. Pure and deterministic: no resampling, no seed, so a cell's
/// own p does not change when other cells are added.
[[nodiscard]] WinnersGrid decideWinners(const ResultsTable& runs,
                                        const std::vector<std::string>& approaches,
                                        const DecisionSettings& settings = {});

/// What the significance rule can call with `rounds` rounds per approach in a grid of at most
/// `cells` contested cells, before a study starts (`benchd run --plan`): one paragraph for
/// people naming the fewest rounds that can test at all, the smallest p the rounds allow, whether
/// a lead shown by only one cell can be called, and the smallest lead per metric kind (the noise
/// threshold and the measurement's resolution).
[[nodiscard]] std::string detectableLeadText(std::uint32_t rounds, std::size_t cells,
                                             const DecisionSettings& settings = {});

/// The grid of a run's stored results (every round, SummaryRow order) under the rule and the
/// noise thresholds the run recorded, with the busy scenarios its diagnostics show (busyHost):
/// the one call behind results.md, `benchd run`'s standings, the REST API's winners and
/// benchd-report.
[[nodiscard]] WinnersGrid decideRunWinners(const std::vector<SummaryRow>& runs,
                                           const std::vector<std::string>& approaches,
                                           WinnerRule rule, const NoiseThresholds& noise);

/// The thresholds in words for people: "3 % for every metric" when they are all one value,
/// else the range with the metrics at its ends; then where they came from.
[[nodiscard]] std::string noiseThresholdsText(const NoiseThresholds& noise);

}  // namespace benchd::results
