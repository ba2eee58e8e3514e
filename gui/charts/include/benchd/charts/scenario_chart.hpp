#pragma once
// The chart of one (scenario, approach) phase: the original's six panels (docs/gui.md) over
// the same seconds — latency (p50/p90/p99 per second on a log axis, seconds with errors in
// red), requests per second (ok, failed), CPU (host total, user, system, iowait; worker),
// memory (worker heap and RSS; host RAM %), sockets and threads (host TCP sockets, TCP opens
// per second, worker descriptors and OS threads) and loopback throughput (Mbps). In a
// `postgres` row, the database's CPU and memory are drawn beside the worker's.
//
// benchd-gui shows it live (append one second at a time) and in the results browser;
// benchd-report renders it to PNG. GUI thread only, like every QWidget.

#include <benchd/results/presented_second.hpp>

#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <vector>

class QLabel;

namespace benchd::charts {

class ChartPanel;

class ScenarioChart : public QWidget {
  Q_OBJECT

 public:
  /// kStacked: six panels in one column, as the original's PNG; kGrid: two columns of three,
  /// which fits a window of 1366×768.
  enum class Arrangement : std::uint8_t { kStacked = 1, kGrid };
  static constexpr int kPanelCount = 6;

  explicit ScenarioChart(Arrangement arrangement, QWidget* parent = nullptr);
  ~ScenarioChart() override;
  ScenarioChart(const ScenarioChart&) = delete;
  ScenarioChart& operator=(const ScenarioChart&) = delete;

  /// The heading above the panels ("<approach>: <scenario>" in the original).
  void setTitle(const QString& title);
  [[nodiscard]] QString title() const;
  /// Replaces every point.
  void setSeconds(const std::vector<results::PresentedSecond>& seconds);
  /// Adds one second at the end (the live view).
  void append(const results::PresentedSecond& second);
  void clear();
  /// Seconds drawn so far.
  [[nodiscard]] std::size_t pointCount() const;
  /// The plot area (inside the axes) of panel `index`, in this widget's coordinates; for
  /// pixel checks of rendered images.
  [[nodiscard]] QRect plotArea(int index) const;
  /// The legend entries panel `index` shows ("Name: min / median / max unit" each).
  [[nodiscard]] QStringList legendEntries(int index) const;

 private:
  QLabel* title_ = nullptr;
  std::vector<std::unique_ptr<ChartPanel>> panels_;
};

}  // namespace benchd::charts
