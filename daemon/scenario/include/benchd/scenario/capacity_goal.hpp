#pragma once

#include <string>
#include <string_view>

namespace benchd::scenario {

/// The latency goal of a capacity row (the scenario file's optional 10th column, capacityGoal):
/// the `percentile` of the corrected latency (timed from each request's intended send) at most
/// `bound_millis`. Written as `p99<=50ms`, `p99.9<=200ms`, `p50<=5ms` or `p99<=1.5s`. A row with
/// one is a capacity search (runner::CapacitySearch), not a fixed load.
struct CapacityGoal {
  /// The longest bound: the load generator's latency histogram is exact to about a minute.
  static constexpr double kMaxBoundMillis = 60'000.0;

  double percentile = 99.0;  ///< above 0, below 100
  double bound_millis = 0.0;

  /// The goal as parse() reads it, e.g. "p99<=50ms".
  [[nodiscard]] std::string text() const;

  /// Throws std::invalid_argument saying what was expected and what `text` holds.
  [[nodiscard]] static CapacityGoal parse(std::string_view text);

  friend bool operator==(const CapacityGoal&, const CapacityGoal&) = default;
};

}  // namespace benchd::scenario
