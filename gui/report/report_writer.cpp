#include "report_writer.hpp"

#include <benchd/charts/capacity_chart.hpp>
#include <benchd/charts/scenario_chart.hpp>
#include <benchd/charts/widget_image.hpp>
#include <benchd/charts/winners_grid_view.hpp>
#include <benchd/results/presented_second.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/winner_decision.hpp>

#include <QApplication>
#include <QImage>
#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace benchd::report {
namespace {

namespace fs = std::filesystem;

void savePng(const QImage& image, const fs::path& file) {
  fs::create_directories(file.parent_path());
  const fs::path temporary = file.parent_path() / ("." + file.filename().string() + ".tmp");
  if (image.isNull() || !image.save(QString::fromStdString(temporary.string()), "PNG")) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw std::runtime_error("cannot write " + file.string() +
                             " (is the folder writable and the disk not full?)");
  }
  fs::rename(temporary, file);
}

/// The capacity chart of each capacity row: its first round's trials, every approach's, in the
/// order the run has them. Returns how many were written.
std::size_t writeCapacityCharts(const store::ResultStore& store, store::RunId run,
                                const std::vector<results::SummaryRow>& first_round,
                                const ReportSettings& settings,
                                const std::function<void(const std::string&)>& say) {
  std::size_t written = 0;
  for (const scenario::ScenarioRow& row : store.scenarioRows(run)) {
    if (!row.capacity_goal) {
      continue;
    }
    charts::CapacityChart chart;
    chart.setGoal(QString::fromStdString(row.capacity_goal->text()),
                  row.capacity_goal->bound_millis);
    for (const results::SummaryRow& result : first_round) {
      if (result.scenario != row.name) {
        continue;
      }
      const std::optional<store::ResultId> id =
          store.findResult(run, result.scenario, result.approach);
      if (!id) {
        continue;
      }
      for (const results::CapacityTrialRecord& trial : store.capacityTrials(*id)) {
        chart.addTrial({QString::fromStdString(result.approach), trial.intended_requests_per_second,
                        trial.goal_latency_millis, QString::fromStdString(trial.outcome)});
      }
    }
    if (chart.trials().empty()) {
      continue;  // every search failed before its first trial ended
    }
    const std::string name = row.name + "/capacity.png";
    savePng(charts::renderWidget(chart, settings.capacity_chart_size), settings.out_dir / name);
    ++written;
    say(name + " (capacity trials)");
  }
  return written;
}

}  // namespace

ReportSummary writeReport(const store::ResultStore& store, store::RunId run,
                          const ReportSettings& settings,
                          const std::function<void(const std::string&)>& progress) {
  const std::optional<store::RunRecord> record = store.findRun(run);
  if (!record) {
    throw std::invalid_argument("no run " + std::to_string(run) + " in " + store.file().string());
  }
  const std::vector<results::SummaryRow> runs = store.summaries(run);
  // One chart per (scenario, approach): its first run (the others are in the store).
  std::vector<results::SummaryRow> summaries;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(summaries),
               [](const results::SummaryRow& row) { return row.round == 1; });
  const auto say = [&progress](const std::string& line) {
    if (progress) {
      progress(line);
    }
  };
  ReportSummary summary;
  std::size_t number = 0;
  for (const results::SummaryRow& row : summaries) {
    ++number;
    const std::string name = row.scenario + "/" + row.approach + ".png";
    const std::optional<store::ResultId> result = store.findResult(run, row.scenario, row.approach);
    std::vector<results::PresentedSecond> seconds;
    if (result) {
      for (const results::SecondRecord& second :
           store.seconds(*result, measurement::PhaseKind::kTest)) {
        seconds.push_back(results::presentSecond(second));
      }
    }
    if (seconds.empty()) {
      ++summary.skipped;
      say("[" + std::to_string(number) + "/" + std::to_string(summaries.size()) + "] " + name +
          ": no test seconds stored (" +
          (row.failed ? "failed: " + row.failure_reason : std::string("no test phase")) +
          "), no chart");
      continue;
    }
    charts::ScenarioChart chart(charts::ScenarioChart::Arrangement::kStacked);
    QString title = QString::fromStdString(row.approach + ": " + row.scenario);
    if (row.failed) {
      title += QStringLiteral(" (failed: %1)").arg(QString::fromStdString(row.failure_reason));
    }
    chart.setTitle(title);
    chart.setSeconds(seconds);
    savePng(charts::renderWidget(chart, settings.chart_size), settings.out_dir / name);
    ++summary.charts;
    say("[" + std::to_string(number) + "/" + std::to_string(summaries.size()) + "] " + name);
  }
  summary.capacity_charts = writeCapacityCharts(store, run, summaries, settings, say);
  if (!summaries.empty()) {
    const results::WinnersGrid grid =
        results::decideRunWinners(runs, record->run.approaches, record->run.winner_rule,
                                  store::noiseThresholdsOf(record->run));
    savePng(charts::renderWinnersGrid(grid, QApplication::font()),
            settings.out_dir / "results.png");
    summary.grid = true;
    say("results.png (winners grid)");
  }
  return summary;
}

}  // namespace benchd::report
