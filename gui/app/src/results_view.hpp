#pragma once
// The results browser: a finished (or running) run's (scenario, approach) results; choosing
// one draws its six-panel chart from the stored test seconds (and, for a capacity row, its
// trials in a capacity chart). Below, two runs compared
// (GET /api/v1/compare?base=...&other=...): every throughput and latency change with its
// class, as `benchd compare` prints it.

#include <QJsonObject>
#include <QWidget>
#include <cstdint>

class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QSpinBox;
class QTableWidget;

namespace benchd::charts {
class CapacityChart;
class ScenarioChart;
}  // namespace benchd::charts

namespace benchd::gui {

class ApiClient;

class ResultsView : public QWidget {
  Q_OBJECT

 public:
  ResultsView(ApiClient& api, QWidget* parent = nullptr);

  void showRun(std::int64_t run);
  [[nodiscard]] std::int64_t run() const { return run_; }
  [[nodiscard]] charts::ScenarioChart& chart() const { return *chart_; }
  [[nodiscard]] charts::CapacityChart& capacityChart() const { return *capacity_; }

 signals:
  void message(const QString& text, bool error);

 private:
  /// Charts the seconds of run `repeat` (from 1) of (scenario, approach).
  void showResult(const QString& scenario, const QString& approach, int repeat);
  /// A capacity row's result (`goal` not empty): its trials in the capacity chart; else hides
  /// the chart.
  void showTrials(const QString& scenario, const QString& approach, int repeat,
                  const QString& goal);
  void compare();

  ApiClient& api_;
  std::int64_t run_ = 0;
  QLabel* heading_ = nullptr;
  QListWidget* results_ = nullptr;
  charts::ScenarioChart* chart_ = nullptr;
  charts::CapacityChart* capacity_ = nullptr;
  std::uint64_t trials_request_ =
      0;  ///< the latest showTrials(); replies to older ones are dropped
  QSpinBox* base_ = nullptr;
  QSpinBox* other_ = nullptr;
  QDoubleSpinBox* threshold_ = nullptr;
  QTableWidget* changes_ = nullptr;
};

}  // namespace benchd::gui
