#include <benchd/charts/capacity_chart.hpp>
#include <benchd/results/winners.hpp>

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <string>

namespace benchd::charts {
namespace {

constexpr qreal kMarkerSize = 9.0;

/// The series name of one approach's trials that ended as `outcome`.
QString seriesName(const QString& approach, const QString& outcome) {
  if (outcome == QLatin1String("pass")) {
    return approach;
  }
  return QStringLiteral("%1 (%2)").arg(approach, outcome);
}

/// The goal as the chart shows it: Qt Charts reads titles and legend names as rich text, where
/// "<=" would start a tag and cut the rest off.
QString shownGoal(const QString& goal) {
  QString shown = goal;
  shown.replace(QStringLiteral("<="), QStringLiteral(" \u2264 "));
  return shown.toHtmlEscaped();
}

/// The log axes' range around `low`..`high`: whole decades, so the ticks read 1, 10, 100.
std::pair<qreal, qreal> decades(double low, double high) {
  const double bottom = std::pow(10.0, std::floor(std::log10(std::max(low, 1e-3))));
  const double top = std::pow(10.0, std::ceil(std::log10(std::max(high, bottom * 10.0))));
  return {bottom, top > bottom ? top : bottom * 10.0};
}

}  // namespace

CapacityChart::CapacityChart(QWidget* parent) : QWidget(parent) {
  chart_ = new QChart();
  chart_->setTitle(tr("Capacity search"));
  chart_->legend()->setAlignment(Qt::AlignBottom);
  auto* view = new QChartView(chart_, this);
  view->setRenderHint(QPainter::Antialiasing);
  view->setObjectName(QStringLiteral("capacityChartView"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view);
  setMinimumHeight(240);
  redraw();
}

CapacityChart::~CapacityChart() = default;

void CapacityChart::setGoal(const QString& goal, double bound_millis) {
  goal_ = goal;
  bound_millis_ = bound_millis;
  redraw();
}

void CapacityChart::addTrial(const Trial& trial) {
  if (!approaches_.contains(trial.approach)) {
    approaches_.push_back(trial.approach);
  }
  trials_.push_back(trial);
  redraw();
}

void CapacityChart::clear() {
  trials_.clear();
  approaches_.clear();
  goal_.clear();
  bound_millis_ = 0.0;
  redraw();
}

std::size_t CapacityChart::pointCount(const QString& approach, const QString& outcome) const {
  const QString name = seriesName(approach, outcome);
  for (QAbstractSeries* series : chart_->series()) {
    if (series->name() == name) {
      if (const auto* scatter = qobject_cast<QScatterSeries*>(series)) {
        return static_cast<std::size_t>(scatter->count());
      }
    }
  }
  return 0;
}

void CapacityChart::redraw() {
  chart_->removeAllSeries();
  for (QAbstractAxis* axis : chart_->axes()) {
    chart_->removeAxis(axis);
    delete axis;
  }
  chart_->setTitle(goal_.isEmpty() ? tr("Capacity search")
                                   : tr("Capacity search: the rate asked against the latency "
                                        "of the goal %1")
                                         .arg(shownGoal(goal_)));
  std::vector<std::string> names;
  for (const QString& approach : approaches_) {
    names.push_back(approach.toStdString());
  }
  const std::vector<std::string> colours = results::approachColours(names);
  double rate_low = 1.0;
  double rate_high = 10.0;
  double latency_low = bound_millis_ > 0.0 ? bound_millis_ : 1.0;
  double latency_high = latency_low;
  if (!trials_.empty()) {
    rate_low = rate_high = trials_.front().requests_per_second;
    latency_low = std::min(latency_low, trials_.front().latency_millis);
  }
  for (const Trial& trial : trials_) {
    rate_low = std::min(rate_low, trial.requests_per_second);
    rate_high = std::max(rate_high, trial.requests_per_second);
    latency_low = std::min(latency_low, std::max(trial.latency_millis, 1e-3));
    latency_high = std::max(latency_high, trial.latency_millis);
  }
  const auto [x_low, x_high] = decades(rate_low, rate_high);
  const auto [y_low, y_high] = decades(latency_low, latency_high);
  auto* x_axis = new QLogValueAxis();
  x_axis->setTitleText(tr("arrival rate asked, req/s"));
  x_axis->setLabelFormat(QStringLiteral("%.0f"));
  x_axis->setRange(x_low, x_high);
  auto* y_axis = new QLogValueAxis();
  y_axis->setTitleText(tr("latency at the goal's percentile, ms"));
  y_axis->setLabelFormat(QStringLiteral("%g"));
  y_axis->setRange(y_low, y_high);
  chart_->addAxis(x_axis, Qt::AlignBottom);
  chart_->addAxis(y_axis, Qt::AlignLeft);

  const auto attach = [&](QAbstractSeries* series) {
    chart_->addSeries(series);
    series->attachAxis(x_axis);
    series->attachAxis(y_axis);
  };
  if (bound_millis_ > 0.0) {
    auto* goal = new QLineSeries();
    goal->setName(tr("goal %1").arg(shownGoal(goal_)));
    goal->setPen(QPen(Qt::darkRed, 1.5, Qt::DashLine));
    goal->append(x_low, bound_millis_);
    goal->append(x_high, bound_millis_);
    attach(goal);
  }
  const QStringList outcomes = {QStringLiteral("pass"), QStringLiteral("fail"),
                                QStringLiteral("generator-saturated")};
  for (qsizetype index = 0; index < approaches_.size(); ++index) {
    const QColor colour(QString::fromStdString(
        std::string(results::colourHex(colours[static_cast<std::size_t>(index)]))));
    for (const QString& outcome : outcomes) {
      auto* series = new QScatterSeries();
      series->setName(seriesName(approaches_[index], outcome));
      series->setMarkerSize(kMarkerSize);
      if (outcome == QLatin1String("pass")) {
        series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        series->setColor(colour);
        series->setBorderColor(colour);
      } else if (outcome == QLatin1String("fail")) {
        series->setMarkerShape(QScatterSeries::MarkerShapeCircle);
        series->setColor(Qt::transparent);
        series->setBorderColor(colour);
      } else {
        series->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
        series->setColor(Qt::transparent);
        series->setBorderColor(colour);
      }
      for (const Trial& trial : trials_) {
        if (trial.approach == approaches_[index] && trial.outcome == outcome) {
          series->append(trial.requests_per_second, std::max(trial.latency_millis, y_low));
        }
      }
      if (series->count() == 0 && outcome != QLatin1String("pass")) {
        delete series;  // no legend entry for an outcome that never happened
        continue;
      }
      attach(series);
    }
  }
}

}  // namespace benchd::charts
