#include "results_view.hpp"

#include "api_client.hpp"
#include "api_json.hpp"

#include <benchd/charts/capacity_chart.hpp>
#include <benchd/charts/scenario_chart.hpp>
#include <benchd/results/presented_second.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/scenario/capacity_goal.hpp>

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>
#include <stdexcept>

namespace benchd::gui {
namespace {

constexpr int kScenarioRole = Qt::UserRole;
constexpr int kApproachRole = Qt::UserRole + 1;
constexpr int kRepeatRole = Qt::UserRole + 2;
constexpr int kCapacityGoalRole = Qt::UserRole + 3;  // a capacity row's goal; empty otherwise

QString numberText(const QJsonValue& value) {
  return value.isNull() ? QStringLiteral("-") : QString::number(value.toDouble(), 'g', 6);
}

QString encoded(const QString& segment) {
  return QString::fromLatin1(QUrl::toPercentEncoding(segment));
}

}  // namespace

ResultsView::ResultsView(ApiClient& api, QWidget* parent) : QWidget(parent), api_(api) {
  auto* layout = new QVBoxLayout(this);
  heading_ = new QLabel(tr("Choose a run under Runs and press Show results."), this);
  layout->addWidget(heading_);
  auto* splitter = new QSplitter(Qt::Horizontal, this);
  results_ = new QListWidget(splitter);
  results_->setObjectName(QStringLiteral("resultList"));
  results_->setAccessibleName(tr("Results of the run"));
  auto* chart_area = new QWidget(splitter);
  auto* charts_layout = new QVBoxLayout(chart_area);
  charts_layout->setContentsMargins(0, 0, 0, 0);
  chart_ = new charts::ScenarioChart(charts::ScenarioChart::Arrangement::kGrid, chart_area);
  chart_->setObjectName(QStringLiteral("resultChart"));
  charts_layout->addWidget(chart_, 3);
  capacity_ = new charts::CapacityChart(chart_area);
  capacity_->setObjectName(QStringLiteral("resultCapacityChart"));
  capacity_->hide();
  charts_layout->addWidget(capacity_, 1);
  splitter->setStretchFactor(1, 4);
  layout->addWidget(splitter, 3);

  auto* compare_box = new QGroupBox(tr("Compare two runs"), this);
  auto* compare_layout = new QVBoxLayout(compare_box);
  auto* form = new QHBoxLayout();
  base_ = new QSpinBox(compare_box);
  other_ = new QSpinBox(compare_box);
  for (QSpinBox* box : {base_, other_}) {
    box->setRange(1, 1'000'000'000);
  }
  base_->setObjectName(QStringLiteral("compareBase"));
  other_->setObjectName(QStringLiteral("compareOther"));
  threshold_ = new QDoubleSpinBox(compare_box);
  threshold_->setRange(0.0, 1000.0);
  threshold_->setValue(2.0);
  threshold_->setSuffix(QStringLiteral(" %"));
  auto* compare = new QPushButton(tr("C&ompare"), compare_box);
  compare->setObjectName(QStringLiteral("compareButton"));
  form->addWidget(new QLabel(tr("Base run:"), compare_box));
  form->addWidget(base_);
  form->addWidget(new QLabel(tr("Other run:"), compare_box));
  form->addWidget(other_);
  form->addWidget(new QLabel(tr("Threshold:"), compare_box));
  form->addWidget(threshold_);
  form->addWidget(compare);
  form->addStretch(1);
  compare_layout->addLayout(form);
  changes_ = new QTableWidget(0, 7, compare_box);
  changes_->setObjectName(QStringLiteral("compareTable"));
  changes_->setHorizontalHeaderLabels({tr("Scenario"), tr("Approach"), tr("Metric"), tr("Before"),
                                       tr("After"), tr("Change %"), tr("")});
  changes_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  changes_->verticalHeader()->setVisible(false);
  changes_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  compare_layout->addWidget(changes_);
  layout->addWidget(compare_box, 2);

  connect(results_, &QListWidget::currentItemChanged, this,
          [this](QListWidgetItem* current, QListWidgetItem*) {
            if (current != nullptr) {
              showResult(current->data(kScenarioRole).toString(),
                         current->data(kApproachRole).toString(),
                         current->data(kRepeatRole).toInt());
              showTrials(
                  current->data(kScenarioRole).toString(), current->data(kApproachRole).toString(),
                  current->data(kRepeatRole).toInt(), current->data(kCapacityGoalRole).toString());
            }
          });
  connect(compare, &QPushButton::clicked, this, &ResultsView::compare);
}

void ResultsView::showRun(std::int64_t run) {
  run_ = run;
  heading_->setText(tr("Run %1").arg(run));
  results_->clear();
  chart_->clear();
  chart_->setTitle(QString());
  other_->setValue(static_cast<int>(run));
  api_.get(QStringLiteral("/api/v1/runs/%1/results").arg(run), [this, run](const ApiReply& reply) {
    if (run != run_) {
      return;
    }
    if (!reply.ok()) {
      emit message(tr("Cannot load the results of run %1: %2").arg(run).arg(reply.error), true);
      return;
    }
    const QJsonObject document = reply.json().object();
    const QJsonArray rows = document.value(QStringLiteral("rows")).toArray();
    // A run can complete with failed results (benchd run exits 3 then): say so up front.
    const auto failed = std::count_if(rows.begin(), rows.end(), [](const QJsonValue& row) {
      return row.toObject().value(QStringLiteral("failed")).toBool();
    });
    const QString status = document.value(QStringLiteral("status")).toString();
    heading_->setText(
        failed > 0 ? tr("Run %1 (%2, %n failed result(s))", nullptr, static_cast<int>(failed))
                         .arg(run)
                         .arg(status)
                   : tr("Run %1 (%2)").arg(run).arg(status));
    // A repeated run lists every run of a (scenario, approach); a single run needs no number.
    const bool repeated = std::any_of(rows.begin(), rows.end(), [](const QJsonValue& row) {
      return row.toObject().value(QStringLiteral("round")).toInt() > 1;
    });
    for (const QJsonValue value : rows) {
      const QJsonObject row = value.toObject();
      const QString scenario = row.value(QStringLiteral("scenario")).toString();
      const QString approach = row.value(QStringLiteral("approach")).toString();
      const int repeat = std::max(1, row.value(QStringLiteral("round")).toInt());
      QString label = QStringLiteral("%1 / %2").arg(scenario, approach);
      if (repeated) {
        label += tr(" (run %1)").arg(repeat);
      }
      QString tooltip = row.value(QStringLiteral("failureReason")).toString();
      const QJsonObject diagnostics = row.value(QStringLiteral("diagnostics")).toObject();
      const QJsonObject capacity = row.value(QStringLiteral("capacity")).toObject();
      if (!capacity.isEmpty()) {
        label += tr(" (capacity %1 req/s%2)")
                     .arg(capacity.value(QStringLiteral("requestsPerSecond")).toDouble(), 0, 'f', 0)
                     .arg(capacity.value(QStringLiteral("lowerBound")).toBool() ? tr(" or more")
                                                                                : QString());
        tooltip = tr("Capacity search under %1: %2 after %3 trials")
                      .arg(capacity.value(QStringLiteral("goal")).toString(),
                           capacity.value(QStringLiteral("verdict")).toString())
                      .arg(capacity.value(QStringLiteral("trials")).toInt());
      }
      if (row.value(QStringLiteral("failed")).toBool()) {
        // The source study's words for a server its memory cap ended (summary_row.hpp).
        const bool out_of_memory = tooltip.contains(
            QString::fromUtf8(results::kOutOfMemoryOutcome.data(),
                              static_cast<qsizetype>(results::kOutOfMemoryOutcome.size())));
        label += out_of_memory ? tr(" (OOM — did not complete)") : tr(" (failed)");
      } else if (diagnostics.value(QStringLiteral("busyHost")).toBool()) {
        // The caveat results.md gives: another job loaded the host during this result.
        label += tr(" (busy host)");
        tooltip =
            tr("Measured on a busy host: other processes used %1 % of its CPUs on average "
               "(%2 % at most) and %3 % of its RAM; this scenario's host-wide cells are "
               "not ranked.")
                .arg(diagnostics.value(QStringLiteral("otherCpuPercentAvg")).toDouble(), 0, 'f', 1)
                .arg(diagnostics.value(QStringLiteral("otherCpuPercentMax")).toDouble(), 0, 'f', 1)
                .arg(diagnostics.value(QStringLiteral("otherRamPercentAvg")).toDouble(), 0, 'f', 1);
      }
      auto* item = new QListWidgetItem(label, results_);
      item->setData(kScenarioRole, scenario);
      item->setData(kApproachRole, approach);
      item->setData(kRepeatRole, repeat);
      item->setData(kCapacityGoalRole, capacity.value(QStringLiteral("goal")).toString());
      item->setToolTip(tooltip);
    }
    if (results_->count() > 0) {
      results_->setCurrentRow(0);
    }
  });
}

void ResultsView::showResult(const QString& scenario, const QString& approach, int repeat) {
  const std::int64_t run = run_;
  api_.get(
      QStringLiteral("/api/v1/runs/%1/results/%2/%3/seconds?round=%4")
          .arg(run)
          .arg(encoded(scenario), encoded(approach))
          .arg(repeat),
      [this, run, scenario, approach, repeat](const ApiReply& reply) {
        if (run != run_) {
          return;
        }
        if (!reply.ok()) {
          emit message(
              tr("Cannot load the seconds of %1 / %2: %3").arg(scenario, approach, reply.error),
              true);
          return;
        }
        std::vector<results::PresentedSecond> seconds;
        for (const QJsonValue value :
             reply.json().object().value(QStringLiteral("seconds")).toArray()) {
          seconds.push_back(presentedSecondFromJson(value.toObject()));
        }
        chart_->setTitle(repeat > 1 ? tr("%1: %2 (run %3)").arg(approach, scenario).arg(repeat)
                                    : QStringLiteral("%1: %2").arg(approach, scenario));
        chart_->setSeconds(seconds);
      });
}

void ResultsView::showTrials(const QString& scenario, const QString& approach, int repeat,
                             const QString& goal) {
  capacity_->clear();
  const std::uint64_t request = ++trials_request_;  // a later choice makes this one stale
  if (goal.isEmpty()) {
    capacity_->hide();
    return;
  }
  double bound_millis = 0.0;
  try {
    bound_millis = scenario::CapacityGoal::parse(goal.toStdString()).bound_millis;
  } catch (const std::invalid_argument&) {
    // A goal the daemon wrote always reads back; without its bound the chart has no goal line.
  }
  capacity_->setGoal(goal, bound_millis);
  capacity_->show();
  const std::int64_t run = run_;
  api_.get(QStringLiteral("/api/v1/runs/%1/results/%2/%3/trials?round=%4")
               .arg(run)
               .arg(encoded(scenario), encoded(approach))
               .arg(repeat),
           [this, run, approach, request](const ApiReply& reply) {
             if (run != run_ || request != trials_request_) {
               return;
             }
             if (!reply.ok()) {
               emit message(tr("Cannot load the capacity trials: %1").arg(reply.error), true);
               return;
             }
             for (const QJsonValue value :
                  reply.json().object().value(QStringLiteral("trials")).toArray()) {
               const QJsonObject trial = value.toObject();
               capacity_->addTrial(
                   {approach, trial.value(QStringLiteral("intendedRequestsPerSecond")).toDouble(),
                    trial.value(QStringLiteral("goalLatencyMillis")).toDouble(),
                    trial.value(QStringLiteral("outcome")).toString()});
             }
           });
}

void ResultsView::compare() {
  const int base = base_->value();
  const int other = other_->value();
  api_.get(
      QStringLiteral("/api/v1/compare?base=%1&other=%2&threshold=%3")
          .arg(base)
          .arg(other)
          .arg(threshold_->value()),
      [this, base, other](const ApiReply& reply) {
        if (!reply.ok()) {
          emit message(
              tr("Cannot compare run %1 with run %2: %3").arg(base).arg(other).arg(reply.error),
              true);
          return;
        }
        changes_->setRowCount(0);
        for (const QJsonValue group :
             reply.json().object().value(QStringLiteral("groups")).toArray()) {
          for (const QJsonValue value :
               group.toObject().value(QStringLiteral("changes")).toArray()) {
            const QJsonObject change = value.toObject();
            const int row = changes_->rowCount();
            changes_->insertRow(row);
            const QString kind = change.value(QStringLiteral("change")).toString();
            const QStringList texts = {change.value(QStringLiteral("scenario")).toString(),
                                       change.value(QStringLiteral("approach")).toString(),
                                       change.value(QStringLiteral("metric")).toString(),
                                       numberText(change.value(QStringLiteral("before"))),
                                       numberText(change.value(QStringLiteral("after"))),
                                       numberText(change.value(QStringLiteral("percentChange"))),
                                       kind};
            for (int column = 0; column < texts.size(); ++column) {
              auto* item = new QTableWidgetItem(texts[column]);
              if (kind == QLatin1String("improved")) {
                item->setForeground(QColor(0x00, 0x70, 0x00));
              } else if (kind == QLatin1String("regressed")) {
                item->setForeground(QColor(0xb0, 0x00, 0x00));
              }
              changes_->setItem(row, column, item);
            }
          }
        }
      });
}

}  // namespace benchd::gui
