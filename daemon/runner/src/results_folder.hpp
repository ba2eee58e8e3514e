#pragma once

#include <benchd/results/results_markdown.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/sampling/system_specs.hpp>
#include <benchd/scenario/scenario_row.hpp>
#include <benchd/store/result_store.hpp>

#include <filesystem>
#include <vector>

namespace benchd::runner {

/// The results folder of one run (docs/run.md#the-results-folder): results.csv, rewritten after
/// every result so a stopped run leaves what finished; with -C the per-second series of each
/// (scenario, approach) as <scenario>/<approach>-load.csv and <scenario>/<approach>-system.csv;
/// noise-thresholds.csv, the thresholds its winners are decided with; and results.md when the
/// run ends. Throws std::runtime_error naming the file it cannot write.
/// Used by one thread.
class ResultsFolder {
 public:
  /// `not_run`: the (scenario, approach)s the plan skips, which results.md names.
  ResultsFolder(std::filesystem::path dir, bool keep_csv, store::NewRun run,
                std::vector<scenario::ScenarioRow> rows,
                std::vector<results::NotRunApproach> not_run = {});

  void addResult(const results::SummaryRow& row,
                 const std::vector<results::SecondRecord>& test_seconds);
  /// Writes thresholds an A/A run measured (measured-noise-thresholds.csv).
  void writeMeasuredNoiseThresholds(const results::NoiseThresholds& thresholds) const;
  void finish(const std::vector<results::SummaryRow>& rows,
              const std::vector<sampling::SpecEntry>& specs, std::int64_t started_epoch_millis,
              std::int64_t finished_epoch_millis, bool stopped);

 private:
  void writeResultsCsv() const;

  std::filesystem::path dir_;
  bool keep_csv_;
  store::NewRun run_;
  std::vector<scenario::ScenarioRow> rows_;
  std::vector<results::NotRunApproach> not_run_;
  std::vector<results::SummaryRow> results_;
};

}  // namespace benchd::runner
