#include "chart_panel.hpp"

#include <QLegendMarker>
#include <QLocale>
#include <QLogValueAxis>
#include <QPen>
#include <algorithm>
#include <cmath>

namespace benchd::charts {
namespace {

/// The log axis cannot show 0; latencies below this are drawn at it (the original lifted error
/// samples by 0.1 ms for the same reason).
constexpr double kLogFloor = 0.01;

/// A tick step of 1, 2 or 5 times a power of ten that cuts `range` into about `ticks` parts.
double niceStep(double range, int ticks) {
  if (!(range > 0.0) || !std::isfinite(range)) {
    return 1.0;
  }
  const double raw = range / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double step : {1.0, 2.0, 5.0}) {
    if (raw <= step * magnitude) {
      return step * magnitude;
    }
  }
  return 10.0 * magnitude;
}

/// Sets 0..top, with `top` rounded up to a whole tick step so the last label sits on the edge.
void setNiceRange(QValueAxis* axis, double top, int ticks) {
  const double step = niceStep(top, ticks);
  const double rounded_top = std::max(step, std::ceil(top / step - 1e-9) * step);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0.0);
  axis->setTickInterval(step);
  axis->setRange(0.0, rounded_top);
}

double logFloorPower(double value) {
  return std::pow(10.0, std::floor(std::log10(std::max(value, kLogFloor))));
}

double logCeilingPower(double value) {
  return std::pow(10.0, std::ceil(std::log10(std::max(value, kLogFloor * 10.0))));
}

}  // namespace

Spread Spread::of(std::vector<double> values) {
  Spread spread;
  if (values.empty()) {
    return spread;
  }
  std::sort(values.begin(), values.end());
  spread.min = values.front();
  spread.max = values.back();
  const std::size_t middle = values.size() / 2;
  spread.median =
      values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
  return spread;
}

QString panelNumber(double value) {
  const QLocale english(QLocale::English);
  if (!std::isfinite(value)) {
    return QStringLiteral("-");
  }
  if (std::abs(value) >= 10.0) {
    return english.toString(value, 'f', 0);
  }
  QString text = english.toString(value, 'f', 2);
  // "0.50" reads as "0.5", "2.00" as "2": trailing zeros say nothing here.
  while (text.contains('.') && (text.endsWith('0') || text.endsWith('.'))) {
    text.chop(1);
  }
  return text;
}

ChartPanel::ChartPanel(PanelSpec spec) : spec_(std::move(spec)) {
  chart_ = new QChart();
  chart_->setAnimationOptions(QChart::NoAnimation);
  chart_->legend()->setAlignment(Qt::AlignTop);
  chart_->legend()->setShowToolTips(true);
  chart_->setMargins(QMargins(4, 2, 4, 2));

  x_axis_ = new QValueAxis();
  x_axis_->setLabelFormat("%.0f");
  x_axis_->setTitleText(QStringLiteral("Seconds"));
  x_axis_->setMinorTickCount(1);
  chart_->addAxis(x_axis_, Qt::AlignBottom);

  if (spec_.scale == PanelScale::kLog) {
    auto* log_axis = new QLogValueAxis();
    log_axis->setBase(10.0);
    log_axis->setLabelFormat("%g");
    log_axis->setMinorTickCount(-1);  // Qt picks the minor ticks between the decades
    y_axis_ = log_axis;
  } else {
    auto* value_axis = new QValueAxis();
    value_axis->setLabelFormat("%g");
    value_axis->setMinorTickCount(1);
    y_axis_ = value_axis;
  }
  y_axis_->setTitleText(spec_.left_label);
  QPen dotted(QColor(0xc8, 0xc8, 0xc8));
  dotted.setStyle(Qt::DotLine);
  for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(x_axis_), y_axis_}) {
    axis->setGridLinePen(dotted);
    axis->setMinorGridLinePen(dotted);
  }
  chart_->addAxis(y_axis_, Qt::AlignLeft);
  if (!spec_.right_label.isEmpty()) {
    right_axis_ = new QValueAxis();
    right_axis_->setLabelFormat("%g");
    right_axis_->setTitleText(spec_.right_label);
    right_axis_->setGridLineVisible(false);
    chart_->addAxis(right_axis_, Qt::AlignRight);
  }

  for (const PanelLine& line : spec_.lines) {
    auto* series = new QLineSeries();
    series->setName(line.name);
    QPen pen(line.colour);
    pen.setWidthF(line.width);
    series->setPen(pen);
    chart_->addSeries(series);
    series->attachAxis(x_axis_);
    series->attachAxis(line.right_axis && right_axis_ != nullptr ? right_axis_ : y_axis_);
    series_.push_back(series);
  }
  values_.resize(spec_.lines.size());
  if (spec_.error_markers) {
    errors_ = new QScatterSeries();
    errors_->setColor(Qt::red);
    errors_->setBorderColor(Qt::red);
    errors_->setMarkerSize(6.0);
    errors_->setName(QStringLiteral("Errors: 0"));
    chart_->addSeries(errors_);
    errors_->attachAxis(x_axis_);
    errors_->attachAxis(y_axis_);
  }
  view_ = new QChartView(chart_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(140);
  refresh();
}

void ChartPanel::clear() {
  for (QLineSeries* series : series_) {
    series->clear();
  }
  if (errors_ != nullptr) {
    errors_->clear();
  }
  for (std::vector<double>& values : values_) {
    values.clear();
  }
  seconds_.clear();
  failed_total_ = 0;
  errors_max_ = 0.0;
  refresh();
}

void ChartPanel::add(const results::PresentedSecond& second) {
  seconds_.push_back(second.seconds);
  for (std::size_t index = 0; index < spec_.lines.size(); ++index) {
    if (spec_.lines[index].present != nullptr && !spec_.lines[index].present(second)) {
      continue;
    }
    double value = spec_.lines[index].value(second);
    values_[index].push_back(value);
    if (spec_.scale == PanelScale::kLog && !spec_.lines[index].right_axis) {
      value = std::max(value, kLogFloor);
    }
    series_[index]->append(second.seconds, value);
  }
  if (errors_ != nullptr && second.failed > 0) {
    failed_total_ += second.failed;
    errors_max_ = std::max(errors_max_, second.latency_max_millis);
    errors_->append(second.seconds, std::max(second.latency_max_millis, kLogFloor));
  }
}

void ChartPanel::refresh() {
  const double last_second = seconds_.empty() ? 0.0 : seconds_.back();
  setNiceRange(x_axis_, std::max(1.0, std::ceil(last_second)), 10);

  double left_min = kLogFloor * 10.0;
  double left_max = 0.0;
  double right_max = 0.0;
  for (std::size_t index = 0; index < spec_.lines.size(); ++index) {
    const Spread spread = Spread::of(values_[index]);
    const PanelLine& line = spec_.lines[index];
    const QString& unit = line.right_axis ? spec_.right_unit : spec_.unit;
    const QString statistics = QStringLiteral("%1: %2 / %3 / %4 %5")
                                   .arg(line.name, panelNumber(spread.min),
                                        panelNumber(spread.median), panelNumber(spread.max), unit)
                                   .trimmed();
    series_[index]->setName(spec_.compact_legend ? line.name : statistics);
    // A line no second has (yet) says nothing; its legend entry would read "0 / 0 / 0".
    series_[index]->setVisible(line.present == nullptr || !values_[index].empty());
    if (line.right_axis) {
      right_max = std::max(right_max, spread.max);
    } else {
      left_max = std::max(left_max, spread.max);
      if (!values_[index].empty()) {
        left_min = std::min(left_min, std::max(spread.min, kLogFloor));
      }
    }
  }
  if (errors_ != nullptr) {
    errors_->setName(
        QStringLiteral("Errors: %1")
            .arg(QLocale(QLocale::English).toString(static_cast<qulonglong>(failed_total_))));
    // Without errors the marker only clutters the legend.
    const QList<QLegendMarker*> markers = chart_->legend()->markers(errors_);
    for (QLegendMarker* marker : markers) {
      marker->setVisible(failed_total_ > 0);
    }
  }
  left_max = std::max(left_max, errors_max_);  // the error markers sit at the second's max
  if (spec_.scale == PanelScale::kLog) {
    y_axis_->setRange(logFloorPower(left_min), logCeilingPower(left_max));
  } else {
    setNiceRange(static_cast<QValueAxis*>(y_axis_), left_max > 0.0 ? left_max * 1.05 : 1.0, 4);
  }
  if (right_axis_ != nullptr) {
    setNiceRange(right_axis_, right_max > 0.0 ? right_max * 1.05 : 1.0, 4);
  }

  QString title = spec_.title;
  if (spec_.headline_line < values_.size()) {
    const Spread headline = Spread::of(values_[spec_.headline_line]);
    title += QStringLiteral(" (Min / Median / Max: %1 / %2 / %3 %4)")
                 .arg(panelNumber(headline.min), panelNumber(headline.median),
                      panelNumber(headline.max), spec_.unit)
                 .replace(QStringLiteral(" )"), QStringLiteral(")"));
  }
  chart_->setTitle(title);
}

QStringList ChartPanel::legendEntries() const {
  QStringList entries;
  for (QLineSeries* series : series_) {
    if (series->isVisible()) {
      entries.push_back(series->name());
    }
  }
  return entries;
}

}  // namespace benchd::charts
