#pragma once

#include "row_run.hpp"

#include <benchd/results/capacity_result.hpp>
#include <benchd/runner/capacity_search.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <cstdint>
#include <optional>
#include <vector>

namespace benchd::runner {

/// One run of a capacity row (a scenario row with a capacityGoal) for one approach: a
/// CapacitySearch over fixed-rate trials, each one pass through RowRun's steps with a fresh
/// worker, the row's warm-up and its test at the trial's rate, judged by judgeTrial. Every
/// trial's seconds are stored under the one result, numbered on, and each trial as a
/// capacity_trial row. The summary row is the highest passing trial's (its 28 metrics measured
/// at the rate found) with the search's CapacityResult; a row where no trial passed keeps the
/// last trial's metrics and the rate 0.
///
/// A trial whose worker fails (crash, wrong answers, OOM) fails the whole row, as in a fixed
/// row: such an approach has no capacity. A stop request ends it without a result. Used once,
/// on the run's thread.
class CapacityRowRun {
 public:
  /// `steps` is the (row, approach)'s RowRun; it must outlive this. `warm_start` is the rate
  /// earlier rounds found (warmStartRate), where this search starts in kWarmStepFactor steps;
  /// none: from the row's requestsPerSecond, doubling.
  CapacityRowRun(RowRun& steps, const RowRunContext& context, const RowPlan& row_plan,
                 const Approach& approach, store::ResultId result_id,
                 std::optional<double> warm_start);

  /// The summary row (a failed one included); nullopt when a stop request cut the search short.
  std::optional<results::SummaryRow> run();

  /// Every trial's test seconds in order, for the raw CSV files.
  [[nodiscard]] const std::vector<results::SecondRecord>& testSeconds() const noexcept {
    return all_test_seconds_;
  }

 private:
  struct JudgedTrial {
    results::CapacityTrialRecord record;  ///< without its number and confirmation flag
    TrialOutcome outcome = TrialOutcome::kFail;
  };
  /// A trial's record and outcome from what its test phase measured.
  [[nodiscard]] JudgedTrial judge(std::uint32_t rate, const RowAttempt& attempted,
                                  std::uint32_t first_second) const;

  RowRun& steps_;
  const RowRunContext& context_;
  const RowPlan& row_plan_;
  const Approach& approach_;
  store::ResultId result_id_;
  std::optional<double> warm_start_;
  std::vector<results::SecondRecord> all_test_seconds_;
};

}  // namespace benchd::runner
