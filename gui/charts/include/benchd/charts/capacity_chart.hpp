#pragma once
// The trials of capacity searches (docs/scenarios.md#capacity-rows): the arrival rate each trial
// asked for (x, log scale) against the goal's latency percentile it measured (y, ms, log scale),
// one colour per approach (results::approachColours, in the order approaches first appear),
// passing trials filled, failing ones hollow, trials where the load generator was the limit as
// hollow diamonds; a dashed line marks the goal. A staircase of a search reads left to right as it
// doubled, then narrows on the capacity where filled and hollow points meet.
//
// benchd-gui draws it live (the run's trial events) and for a stored result (its trials route).
// GUI thread only, like every QWidget.

#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <vector>

class QChart;

namespace benchd::charts {

class CapacityChart : public QWidget {
  Q_OBJECT

 public:
  /// How a trial ended, as the API spells it: pass, fail, generator-saturated.
  struct Trial {
    QString approach;
    double requests_per_second = 0.0;  ///< the rate asked for
    double latency_millis = 0.0;       ///< the goal's percentile, measured
    QString outcome;
  };

  explicit CapacityChart(QWidget* parent = nullptr);
  ~CapacityChart() override;
  CapacityChart(const CapacityChart&) = delete;
  CapacityChart& operator=(const CapacityChart&) = delete;

  /// The goal drawn as a line and named in the title, e.g. ("p99<=50ms", 50).
  void setGoal(const QString& goal, double bound_millis);
  void addTrial(const Trial& trial);
  /// Forgets every trial and the goal.
  void clear();

  [[nodiscard]] const std::vector<Trial>& trials() const noexcept { return trials_; }
  /// The approaches drawn, in the order they first appeared.
  [[nodiscard]] const QStringList& approaches() const noexcept { return approaches_; }
  /// Points drawn in the series of `approach` for trials that ended as `outcome`.
  [[nodiscard]] std::size_t pointCount(const QString& approach, const QString& outcome) const;
  [[nodiscard]] QChart* chart() const noexcept { return chart_; }

 private:
  /// Rebuilds the series and axes from trials_ (a few dozen points: simpler than updating).
  void redraw();

  QChart* chart_ = nullptr;  // owned by its view
  QString goal_;
  double bound_millis_ = 0.0;
  std::vector<Trial> trials_;
  QStringList approaches_;
};

}  // namespace benchd::charts
