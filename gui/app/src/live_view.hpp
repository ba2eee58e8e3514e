#pragma once
// The live view of a run: where it stands (row, scenario, approach, step, progress and time
// left) and the six-panel chart of the (scenario, approach) being measured, one point per
// second from the run's snapshot events. Every (scenario, approach) of the run keeps its
// seconds, so the chooser can go back to one that finished; it follows the current one unless
// the user picked another. Each phase (warm-up, test) starts a fresh series.

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
class ScenarioChart;
}

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

 private:
  struct Series {
    QString phase;
    std::vector<results::PresentedSecond> seconds;
  };
  void showSeries(const QString& key);

  QLabel* run_ = nullptr;
  QLabel* where_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QComboBox* chooser_ = nullptr;
  charts::ScenarioChart* chart_ = nullptr;
  QMap<QString, Series> series_;  // "<approach>: <scenario>"
  QString current_;               // the key the run is measuring now
  bool follow_current_ = true;
};

}  // namespace benchd::gui
