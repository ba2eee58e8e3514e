#pragma once
// The live view of a run: where it stands (row, scenario, approach, step, progress and time
// left) and the six-panel chart of the (scenario, approach) being measured, one point per
// second from the run's snapshot events. Every (scenario, approach) of the run keeps its
// seconds, so the chooser can go back to one that finished; it follows the current one unless
// the user picked another. Each phase (warm-up, test) starts a fresh series. A capacity row's
// trials (its `trial` events) are drawn below as they end, every approach of the row in one
// capacity chart; the chart appears with the first trial and starts over with the next such row.

#include <benchd/results/presented_second.hpp>

#include <QJsonObject>
#include <QMap>
#include <QWidget>
#include <cstdint>
#include <vector>

class QComboBox;
class QLabel;
class QProgressBar;

namespace benchd::charts {
class CapacityChart;
class ScenarioChart;
}  // namespace benchd::charts

namespace benchd::gui {

class LiveView : public QWidget {
  Q_OBJECT

 public:
  explicit LiveView(QWidget* parent = nullptr);

  /// A new run is followed: forget the previous one.
  void beginRun(std::int64_t run);
  /// One event of the followed run.
  void onEvent(const QString& type, const QJsonObject& payload);
  [[nodiscard]] charts::ScenarioChart& chart() const { return *chart_; }
  [[nodiscard]] charts::CapacityChart& capacityChart() const { return *capacity_; }

 private:
  struct Series {
    QString phase;
    std::vector<results::PresentedSecond> seconds;
  };
  void showSeries(const QString& key);
  void addTrial(const QJsonObject& payload);

  QLabel* run_ = nullptr;
  QLabel* where_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QComboBox* chooser_ = nullptr;
  charts::ScenarioChart* chart_ = nullptr;
  charts::CapacityChart* capacity_ = nullptr;
  QString capacity_scenario_;     // the capacity row the capacity chart shows
  QMap<QString, Series> series_;  // "<approach>: <scenario>"
  QString current_;               // the key the run is measuring now
  bool follow_current_ = true;
};

}  // namespace benchd::gui
