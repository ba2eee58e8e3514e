#pragma once
// The PNG report of a stored run: per (scenario, approach) with stored test seconds, the
// six-panel chart as <out>/<scenario>/<approach>.png; per capacity row, its first round's
// trials of every approach as <out>/<scenario>/capacity.png; and the winners grid as
// <out>/results.png — the images results.md embeds (docs/run.md#resultsmd).
//
// Reads the store (its own connection: WAL lets it read while a writer writes); what it relies
// on, and why opening an older file writes it, is in docs/store-schema.md. Computes nothing
// itself: the seconds are the stored ones, the grid is results::computeWinners over the stored
// summaries. Needs a QApplication (the offscreen platform will do). GUI thread.

#include <benchd/store/result_store.hpp>

#include <QSize>
#include <filesystem>
#include <functional>
#include <string>

namespace benchd::report {

struct ReportSettings {
  std::filesystem::path out_dir;
  QSize chart_size{1800, 1500};          ///< per (scenario, approach) chart, in pixels
  QSize capacity_chart_size{1400, 900};  ///< per capacity row
};

struct ReportSummary {
  std::size_t charts = 0;   ///< (scenario, approach) charts written
  std::size_t skipped = 0;  ///< results with no stored test seconds (failed before the test)
  std::size_t capacity_charts = 0;  ///< capacity rows' charts written
  bool grid = false;                ///< results.png written (there was at least one result)
};

/// Writes the report of `run`. Each image is written to a temporary name and renamed, so a
/// reader never sees half a PNG. `progress` gets one line per image (may be empty).
/// Throws std::runtime_error naming the file when an image cannot be written, and
/// store::StoreError for a store that cannot be read; std::invalid_argument for no such run.
ReportSummary writeReport(const store::ResultStore& store, store::RunId run,
                          const ReportSettings& settings,
                          const std::function<void(const std::string&)>& progress);

}  // namespace benchd::report
