#include "live_view.hpp"

#include "api_json.hpp"

#include <benchd/charts/capacity_chart.hpp>
#include <benchd/charts/scenario_chart.hpp>
#include <benchd/results/presented_second.hpp>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QVBoxLayout>
#include <cmath>

namespace benchd::gui {
namespace {

QString keyOf(const QJsonObject& payload) {
  return QStringLiteral("%1: %2").arg(payload.value(QStringLiteral("approach")).toString(),
                                      payload.value(QStringLiteral("scenario")).toString());
}

QString minutes(double seconds) {
  const auto total = static_cast<long long>(std::lround(std::max(0.0, seconds)));
  return QStringLiteral("%1:%2").arg(total / 60).arg(total % 60, 2, 10, QLatin1Char('0'));
}

}  // namespace

LiveView::LiveView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* header = new QHBoxLayout();
  run_ = new QLabel(tr("No run followed. Start one, or pick a running one under Runs."), this);
  run_->setObjectName(QStringLiteral("liveRunLabel"));
  header->addWidget(run_, 1);
  auto* chooser_label = new QLabel(tr("C&hart:"), this);
  header->addWidget(chooser_label);
  chooser_ = new QComboBox(this);
  chooser_label->setBuddy(chooser_);
  chooser_->setObjectName(QStringLiteral("liveChartChooser"));
  chooser_->setAccessibleName(tr("Approach and scenario shown"));
  chooser_->setMinimumContentsLength(30);
  header->addWidget(chooser_);
  layout->addLayout(header);
  auto* where = new QHBoxLayout();
  where_ = new QLabel(this);
  where_->setObjectName(QStringLiteral("livePhaseLabel"));
  where->addWidget(where_, 1);
  progress_ = new QProgressBar(this);
  progress_->setObjectName(QStringLiteral("liveProgress"));
  progress_->setRange(0, 1000);
  progress_->setFormat(QStringLiteral("%p%"));
  progress_->setMaximumWidth(320);
  where->addWidget(progress_);
  layout->addLayout(where);
  chart_ = new charts::ScenarioChart(charts::ScenarioChart::Arrangement::kGrid, this);
  chart_->setObjectName(QStringLiteral("liveChart"));
  layout->addWidget(chart_, 1);
  capacity_ = new charts::CapacityChart(this);
  capacity_->setObjectName(QStringLiteral("liveCapacityChart"));
  capacity_->hide();
  layout->addWidget(capacity_);

  connect(chooser_, &QComboBox::textActivated, this, [this](const QString& key) {
    follow_current_ = key == current_;
    showSeries(key);
  });
}

void LiveView::beginRun(std::int64_t run) {
  series_.clear();
  current_.clear();
  follow_current_ = true;
  chooser_->clear();
  chart_->clear();
  chart_->setTitle(QString());
  capacity_->clear();
  capacity_->hide();
  capacity_scenario_.clear();
  run_->setText(tr("Run %1").arg(run));
  where_->setText(tr("waiting for the run to start…"));
  progress_->setValue(0);
}

void LiveView::onEvent(const QString& type, const QJsonObject& payload) {
  if (type == QLatin1String("end")) {
    const QString error = payload.value(QStringLiteral("error")).toString();
    // The estimate of the last step's time is only an estimate: a completed run is all done.
    if (payload.value(QStringLiteral("status")).toString() == QLatin1String("completed")) {
      progress_->setValue(progress_->maximum());
    }
    where_->setText(tr("Run %1%2")
                        .arg(payload.value(QStringLiteral("status")).toString(),
                             error.isEmpty() ? QString() : QStringLiteral(": ") + error));
    return;
  }
  if (type == QLatin1String("trial")) {
    addTrial(payload);
    return;
  }
  if (type != QLatin1String("phase") && type != QLatin1String("snapshot")) {
    return;
  }
  const QString key = keyOf(payload);
  const QString step = payload.value(QStringLiteral("step")).toString();
  const int repeats = payload.value(QStringLiteral("repeats")).toInt();
  const QString round =
      repeats > 1
          ? tr(" · round %1 of %2").arg(payload.value(QStringLiteral("round")).toInt()).arg(repeats)
          : QString();
  where_->setText(
      tr("Row %1 of %2 · %3 · approach %4 of %5%6 · %7 · %8 left")
          .arg(payload.value(QStringLiteral("row")).toInt())
          .arg(payload.value(QStringLiteral("rows")).toInt())
          .arg(key)
          .arg(payload.value(QStringLiteral("approachNumber")).toInt())
          .arg(payload.value(QStringLiteral("approaches")).toInt())
          .arg(round, step,
               minutes(payload.value(QStringLiteral("runRemainingSeconds")).toDouble())));
  const double elapsed = payload.value(QStringLiteral("runElapsedSeconds")).toDouble();
  const double remaining = payload.value(QStringLiteral("runRemainingSeconds")).toDouble();
  if (elapsed + remaining > 0.0) {
    progress_->setValue(static_cast<int>(std::lround(1000.0 * elapsed / (elapsed + remaining))));
  }
  if (type != QLatin1String("snapshot")) {
    return;
  }
  if (!series_.contains(key)) {
    chooser_->addItem(key);
  }
  Series& series = series_[key];
  if (series.phase != step) {
    series.phase = step;  // a new phase starts at 0 s
    series.seconds.clear();
  }
  series.seconds.push_back(presentedSecondFromJson(payload));
  const bool switched = current_ != key;
  current_ = key;
  if (follow_current_) {
    if (switched || chart_->title() != QStringLiteral("%1 (%2)").arg(key, step)) {
      chooser_->setCurrentText(key);
      showSeries(key);
    } else {
      chart_->append(series.seconds.back());
    }
  }
}

void LiveView::showSeries(const QString& key) {
  const auto found = series_.constFind(key);
  if (found == series_.constEnd()) {
    return;
  }
  chart_->setTitle(QStringLiteral("%1 (%2)").arg(key, found->phase));
  chart_->setSeconds(found->seconds);
}

void LiveView::addTrial(const QJsonObject& payload) {
  const QString scenario = payload.value(QStringLiteral("scenario")).toString();
  if (scenario != capacity_scenario_) {
    capacity_scenario_ = scenario;
    capacity_->clear();
    capacity_->setGoal(payload.value(QStringLiteral("goal")).toString(),
                       payload.value(QStringLiteral("goalBoundMillis")).toDouble());
  }
  const QJsonObject trial = payload.value(QStringLiteral("trial")).toObject();
  capacity_->addTrial({payload.value(QStringLiteral("approach")).toString(),
                       trial.value(QStringLiteral("intendedRequestsPerSecond")).toDouble(),
                       trial.value(QStringLiteral("goalLatencyMillis")).toDouble(),
                       trial.value(QStringLiteral("outcome")).toString()});
  capacity_->show();
}

}  // namespace benchd::gui
