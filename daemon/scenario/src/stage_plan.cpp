#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

namespace benchd::scenario {
namespace {

using std::chrono::milliseconds;

/// floor(x), except that a product like 0.3 * 10 that lands a hair below a whole number counts
/// as that number.
double floorTolerant(double value) {
  return std::floor(value * (1.0 + 1e-12) + 1e-9);
}

/// The stages of a ramping sub-scenario on the phase's time line. Stage ends are rounded on the
/// cumulative time line so that rounding never accumulates, and the last stage ends exactly at
/// `total`.
template <typename ScaleTarget>
std::vector<PlannedStage> planRampingStages(const SubScenario& sub, milliseconds total,
                                            ScaleTarget scale_target) {
  if (sub.stages.empty() || sub.stage_cycles == 0) {
    throw std::invalid_argument("sub-scenario '" + sub.name + "' has no stages");
  }
  std::vector<PlannedStage> stages;
  stages.reserve(sub.stages.size() * sub.stage_cycles);
  double elapsed_fraction = 0.0;
  milliseconds previous_end{0};
  for (std::uint32_t cycle = 0; cycle < sub.stage_cycles; ++cycle) {
    for (const Stage& stage : sub.stages) {
      elapsed_fraction += stage.duration_fraction;
      const milliseconds end = std::min(
          total, milliseconds(std::llround(static_cast<double>(total.count()) * elapsed_fraction)));
      stages.push_back({end - previous_end, scale_target(stage.target_fraction)});
      previous_end = end;
    }
  }
  stages.back().duration += total - previous_end;
  return stages;
}

}  // namespace

PhaseLoad testPhaseOf(const ScenarioRow& row) {
  return {row.connections, row.requests_per_second, std::chrono::seconds(row.test_seconds)};
}

PhaseLoad warmupPhaseOf(const ScenarioRow& row) {
  return {row.connections, row.requests_per_second, std::chrono::seconds(row.warmup_seconds)};
}

std::uint32_t connectionsOf(const SubScenario& sub_scenario, std::uint32_t connections) {
  const double share = std::clamp(sub_scenario.connection_share, 0.0, 1.0);
  return static_cast<std::uint32_t>(
      std::min(floorTolerant(share * connections), static_cast<double>(connections)));
}

double SubScenarioPlan::peakTarget() const {
  double peak = start_target;
  for (const PlannedStage& stage : stages) {
    peak = std::max(peak, stage.target);
  }
  return peak;
}

double SubScenarioPlan::targetAt(std::chrono::milliseconds elapsed) const {
  double from = start_target;
  milliseconds stage_start{0};
  for (const PlannedStage& stage : stages) {
    const milliseconds stage_end = stage_start + stage.duration;
    if (elapsed < stage_end) {
      if (elapsed <= stage_start) {
        return from;
      }
      const double progress = static_cast<double>((elapsed - stage_start).count()) /
                              static_cast<double>(stage.duration.count());
      return from + (stage.target - from) * progress;
    }
    from = stage.target;
    stage_start = stage_end;
  }
  return from;
}

StagePlan planStages(const Workload& workload, const PhaseLoad& load) {
  if (load.duration <= std::chrono::seconds(0)) {
    throw std::invalid_argument("a phase must last at least one second");
  }
  if (const std::optional<RowProblem> problem =
          checkRowFitsWorkload(workload, load.connections, load.requests_per_second)) {
    throw std::invalid_argument(std::string(rowColumnName(problem->column)) + ": " +
                                problem->reason);
  }
  StagePlan plan;
  plan.duration = std::chrono::duration_cast<milliseconds>(load.duration);
  if (workload.global_rate_cap == RateCapSource::kScenarioRequestsPerSecond &&
      load.requests_per_second) {
    plan.global_rate_cap = static_cast<double>(*load.requests_per_second);
  }
  std::uint64_t peak_connections = 0;
  for (const SubScenario& sub : workload.sub_scenarios) {
    SubScenarioPlan sub_plan;
    sub_plan.definition = sub;
    sub_plan.connections = connectionsOf(sub, load.connections);
    const bool open_model = isArrivalRate(sub.executor);
    const double full_load =
        open_model
            ? static_cast<double>(load.requests_per_second.value_or(0)) * sub.connection_share
            : static_cast<double>(sub_plan.connections);
    const auto scale_target = [open_model, full_load](double fraction) {
      return open_model ? full_load * fraction : floorTolerant(full_load * fraction);
    };
    if (isRamping(sub.executor)) {
      sub_plan.start_target = scale_target(sub.start_target_fraction);
      sub_plan.stages = planRampingStages(sub, plan.duration, scale_target);
    } else {
      sub_plan.start_target = scale_target(1.0);
      sub_plan.stages = {PlannedStage{plan.duration, sub_plan.start_target}};
    }
    peak_connections +=
        open_model ? sub_plan.connections : static_cast<std::uint64_t>(sub_plan.peakTarget());
    plan.sub_scenarios.push_back(std::move(sub_plan));
  }
  plan.peak_connections =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(peak_connections, load.connections));
  return plan;
}

}  // namespace benchd::scenario
