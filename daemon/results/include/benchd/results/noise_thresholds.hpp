#pragma once

#include <benchd/results/results_table.hpp>
#include <benchd/results/summary_row.hpp>

#include <array>
#include <filesystem>
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <string_view>

namespace benchd::results {

/// The relative threshold of a metric nobody measured: 3 %, the one threshold benchd used for
/// every metric before thresholds were measured per metric.
inline constexpr double kUnmeasuredNoiseShare = 0.03;
/// The lowest threshold a measurement gives: an A/A run whose copies agreed to the last digit in
/// a metric still leaves leads below this share uncalled.
inline constexpr double kLowestNoiseShare = 0.005;
/// The highest: a threshold file holds 0 to 100 %. The relative difference to the pair's mean
/// reaches 200 % (one copy at 0), and an A/A pair of few rounds of a metric that near-idle
/// seconds decide (host CPU at a low rate) can show that much; capped, the file reads back.
inline constexpr double kHighestNoiseShare = 1.0;

/// What a lead in each metric must exceed, as a share of the other approach's value, for the
/// winners grid to call it (winner_decision.hpp: the threshold is part of each round's margin);
/// the measurement's resolution (noiseThreshold) comes on top. Values, freely copied.
struct NoiseThresholds {
  std::array<double, kMetricCount> share{};  ///< kMetricNames order, e.g. 0.012 for 1.2 %
  /// Where they came from, one line for people (results.md and `benchd winners` print it).
  std::string source;

  /// The share of `metric`; kUnmeasuredNoiseShare for a name that is no summary metric.
  [[nodiscard]] double of(std::string_view metric) const;
};

/// The thresholds benchd ships: measured by A/A runs on its development machine (2 cores), each
/// metric's value and its run named in noise_thresholds.cpp and docs/metrics-and-ranking.md
/// (#noise-thresholds).
[[nodiscard]] const NoiseThresholds& shippedNoiseThresholds();

/// What an A/A run (an approach against a byte-identical copy, `a` and `b`, in rounds) typically
/// shows as a lead: per metric, per scenario the size of the median over the rounds of the
/// relative difference between the two (the k-th run of each is round k, as the winners grid
/// pairs them; relative to the pair's mean, rounds where both are 0 or either is missing left
/// out), and of those the median over the scenarios, from kLowestNoiseShare to
/// kHighestNoiseShare. A lead the same
/// code shows against itself is noise, whatever its p. Metrics with no paired round keep
/// `fallback`'s value. Pure function.
[[nodiscard]] NoiseThresholds measureNoiseThresholds(const ResultsTable& runs, const std::string& a,
                                                     const std::string& b,
                                                     const NoiseThresholds& fallback,
                                                     std::string source);

/// A thresholds file that cannot be read: what() names the file, the line and the reason.
class NoiseThresholdsError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The thresholds file (docs/metrics-and-ranking.md#noise-thresholds), CSV with comments:
///
///   # benchd noise thresholds
///   # source: <one line>
///   metric,threshold_percent
///   requests_ok,0.8
///   ...
///
/// every metric once, in kMetricNames order, percent with up to four decimals.
void writeNoiseThresholds(std::ostream& out, const NoiseThresholds& thresholds);
/// Reads what writeNoiseThresholds wrote (`name` names it in errors). A metric the file leaves
/// out keeps the shipped threshold (files written before it existed); an unknown metric, a
/// metric given twice, or a share that is not a number from 0 to 100 is an error naming the
/// line. The "# source:" line becomes `source` (else `name`).
[[nodiscard]] NoiseThresholds readNoiseThresholds(std::istream& in, const std::string& name);
/// readNoiseThresholds of the file at `path`; NoiseThresholdsError also when it cannot be opened.
[[nodiscard]] NoiseThresholds readNoiseThresholdsFile(const std::filesystem::path& path);

}  // namespace benchd::results
