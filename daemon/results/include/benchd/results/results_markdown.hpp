#pragma once

#include <benchd/results/summary_row.hpp>
#include <benchd/results/winners.hpp>
#include <benchd/scenario/scenario_row.hpp>

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace benchd::results {

/// An approach a scenario did not run by design (its plugin lacks the row's client profile).
struct NotRunApproach {
  std::string scenario;
  std::string approach;
  std::string reason;
};

/// Everything results.md shows; built by the runner, rendered here.
struct ResultsDocument {
  std::string title;  ///< the scenario file's stem
  std::int64_t started_epoch_millis = 0;
  std::int64_t finished_epoch_millis = 0;
  bool stopped = false;  ///< the run was stopped before it finished
  /// How often the run was resumed after it ended unfinished, and when it last was (epoch ms).
  std::uint32_t resumes = 0;
  std::int64_t resumed_epoch_millis = 0;
  std::vector<std::pair<std::string, std::string>> specs;
  std::string scenario_file;
  std::string settings_note;  ///< overrides, approaches, CPU pinning: one line
  std::vector<scenario::ScenarioRow> rows;
  std::vector<SummaryRow> results;
  std::vector<NotRunApproach> not_run;  ///< shown under their scenario, with the reason
  WinnersGrid winners;
  /// Image paths relative to the results folder that exist ("results.png",
  /// "<scenario>/<approach>.png"); the others are announced as not available.
  std::set<std::string> images;
};

/// The original's results.md (docs/run.md#resultsmd): title, test time (UTC start, end, duration),
/// system specs, the scenario table, the result overview (the winners standings and grid, and
/// results.png when rendered), then per scenario and approach the chart or "(No image
/// available)", its key numbers, the diagnostics and, for a failed run, the reason.
void writeResultsMarkdown(std::ostream& out, const ResultsDocument& document);

}  // namespace benchd::results
