#pragma once

#include <benchd/scenario/scenario_row.hpp>
#include <benchd/scenario/workload.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace benchd::scenario {

/// The numbers one phase (warm-up or test) of a row runs with.
struct PhaseLoad {
  std::uint32_t connections = 0;
  std::optional<std::uint32_t> requests_per_second;
  std::chrono::seconds duration{0};
};

/// The test phase of a row: its connections, requestsPerSecond and test duration.
PhaseLoad testPhaseOf(const ScenarioRow& row);

/// The warm-up phase of a row (same load, warm-up duration; may be 0, meaning no warm-up).
PhaseLoad warmupPhaseOf(const ScenarioRow& row);

/// One stage in absolute numbers: over `duration` the load moves linearly from where the
/// previous stage ended (or the start target) to `target`.
struct PlannedStage {
  std::chrono::milliseconds duration{0};
  /// VU executors: a whole number of connections; arrival-rate executors: requests per second.
  double target = 0.0;
};

/// A sub-scenario's load over the phase.
struct SubScenarioPlan {
  SubScenario definition;         ///< executor, think time, request mix, graceful stop
  std::uint32_t connections = 0;  ///< floor(share * row connections): the most it opens at once
  /// VU executors: a whole number of connections; arrival-rate executors: requests per second.
  double start_target = 0.0;
  /// Constant executors have one stage at their constant target; together the stages last
  /// exactly the phase's duration.
  std::vector<PlannedStage> stages;

  /// The highest target the sub-scenario reaches (VUs or requests per second).
  [[nodiscard]] double peakTarget() const;

  /// The target at `elapsed` since the phase started (linear within a stage; the last
  /// target after the end).
  [[nodiscard]] double targetAt(std::chrono::milliseconds elapsed) const;
};

/// A workload turned into absolute numbers for one phase.
struct StagePlan {
  std::vector<SubScenarioPlan> sub_scenarios;
  std::chrono::milliseconds duration{0};
  /// Requests per second across all sub-scenarios, when the workload caps the rate and the row
  /// gives one.
  std::optional<double> global_rate_cap;
  /// Sum of the sub-scenarios' highest VU counts (an arrival-rate sub-scenario counts all its
  /// connections): an upper bound on the connections open at once.
  std::uint32_t peak_connections = 0;
};

/// floor(share * connections), robust against the share's binary rounding.
std::uint32_t connectionsOf(const SubScenario& sub_scenario, std::uint32_t connections);

/// Turns fractions into absolute stages. Stage ends are rounded to the millisecond on the
/// cumulative time line, so the stages add up to the duration exactly; VU targets are
/// floor(fraction * connections of the sub-scenario). Throws std::invalid_argument for a
/// duration of 0, for numbers that do not suit the workload (checkRowFitsWorkload in
/// row_check.hpp: an arrival-rate workload without requests_per_second, a sub-scenario left
/// without a connection; what() is "<column>: <reason>"), which a loaded scenario row never has
/// for its test phase, or for a ramping sub-scenario without stages (a loaded workload never has
/// one). Pure function; safe to call from any thread.
StagePlan planStages(const Workload& workload, const PhaseLoad& load);

}  // namespace benchd::scenario
