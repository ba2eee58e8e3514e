#pragma once

#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/runner/benchmark_run.hpp>

#include <string>

namespace benchd::control {

// The JSON of the run events (see RunEvent). Renderings only: every number comes from the
// engine's model.

/// "phase": where the run is.
std::string phaseEventJson(const runner::Progress& progress);
/// "snapshot": one second of load with its samples.
std::string snapshotEventJson(const runner::Progress& progress,
                              const results::SecondRecord& second);
/// "row": a finished (row, approach) with its summary metrics.
std::string rowEventJson(const results::SummaryRow& row);
/// "trial": one fixed-rate trial of a capacity row's search, with where the run is (scenario,
/// approach, round) and the search's goal beside it.
std::string trialEventJson(const runner::Progress& progress, const scenario::CapacityGoal& goal,
                           const results::CapacityTrialRecord& trial);
/// "end": how the run ended ("completed", "stopped", "failed") and why, if it did not complete.
std::string endEventJson(std::string_view status, const std::string& error);

}  // namespace benchd::control
