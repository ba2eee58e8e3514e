#pragma once

#include <benchd/results/presented_second.hpp>

#include <QChart>
#include <QChartView>
#include <QColor>
#include <QLineSeries>
#include <QScatterSeries>
#include <QString>
#include <QStringList>
#include <QValueAxis>
#include <memory>
#include <vector>

namespace benchd::charts {

/// One line of a panel: which value of a second it plots, and how.
struct PanelLine {
  QString name;
  QColor colour;
  qreal width = 1.0;
  double (*value)(const results::PresentedSecond&) = nullptr;
  bool right_axis = false;  ///< on the panel's second (right) axis
  /// Whether a second has this line's value at all (null: every second has). Seconds without
  /// it add no point; a line without any such second is hidden with its legend entry (the
  /// database's lines in a row without PostgreSQL).
  bool (*present)(const results::PresentedSecond&) = nullptr;
};

/// How a panel scales its left axis.
enum class PanelScale : std::uint8_t { kLinear = 1, kLog };

/// What a panel shows.
struct PanelSpec {
  QString title;  ///< "Latency": the title reads "Latency (Min / Median / Max: ...)"
  QString unit;   ///< of the left-axis lines
  std::size_t headline_line = 0;  ///< the line whose statistics the title shows
  QString left_label;             ///< left axis label
  QString right_label;            ///< right axis label; empty: no right axis
  QString right_unit;             ///< unit of the right-axis lines, for their legend entries
  PanelScale scale = PanelScale::kLinear;
  std::vector<PanelLine> lines;
  /// Marks the seconds that had failed requests (red, at that second's max latency) with the
  /// legend "Errors: N", as the original's error scatter.
  bool error_markers = false;
  /// Legend entries carry the line's name only, not its min / median / max: for small panels,
  /// where the full entries would be cut off (the title keeps the headline's statistics).
  bool compact_legend = false;
};

/// One chart of the six: a QChartView with its lines, axes, and a title and legend entries that
/// carry the min / median / max of each line ("Name: min / median / max unit", the original's
/// legend). GUI thread only. The view is owned by whoever takes it into a layout.
class ChartPanel {
 public:
  explicit ChartPanel(PanelSpec spec);

  [[nodiscard]] QChartView* view() const { return view_; }
  [[nodiscard]] QChart* chart() const { return chart_; }

  void clear();
  /// Adds a second without refreshing axes and titles (call refresh() after a batch).
  void add(const results::PresentedSecond& second);
  /// Axis ranges, title and legend entries from the points so far.
  void refresh();
  [[nodiscard]] std::size_t pointCount() const { return seconds_.size(); }
  /// The legend entries shown, in the lines' order ("Name: min / median / max unit").
  [[nodiscard]] QStringList legendEntries() const;

 private:
  PanelSpec spec_;
  QChart* chart_ = nullptr;          // owned by view_
  QChartView* view_ = nullptr;       // owned by the widget that lays it out
  QValueAxis* x_axis_ = nullptr;     // owned by chart_
  QAbstractAxis* y_axis_ = nullptr;  // owned by chart_
  QValueAxis* right_axis_ = nullptr;
  std::vector<QLineSeries*> series_;  // owned by chart_, one per spec_.lines entry
  QScatterSeries* errors_ = nullptr;
  std::vector<std::vector<double>> values_;  // per line, for the statistics
  std::vector<double> seconds_;
  std::uint64_t failed_total_ = 0;
  double errors_max_ = 0.0;  ///< highest error marker
};

/// min / median / max of `values` (numpy's median: the mean of the middle two for an even
/// count); all 0 when empty.
struct Spread {
  double min = 0.0;
  double median = 0.0;
  double max = 0.0;
  static Spread of(std::vector<double> values);
};

/// A number as the panels' titles show it: thousands separators, 0 decimals from 10 up, else
/// up to 2 ("1,234", "12", "0.25").
QString panelNumber(double value);

}  // namespace benchd::charts
