#include "runs_view.hpp"

#include "api_client.hpp"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace benchd::gui {
namespace {

const QStringList kColumns = {QStringLiteral("Run"),           QStringLiteral("Status"),
                              QStringLiteral("Scenario file"), QStringLiteral("Approaches"),
                              QStringLiteral("Started"),       QStringLiteral("Finished"),
                              QStringLiteral("Error")};

QString timeText(const QJsonValue& epoch_millis) {
  const qint64 millis = epoch_millis.toInteger();
  return millis > 0 ? QDateTime::fromMSecsSinceEpoch(millis).toString(
                          QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                    : QString();
}

}  // namespace

RunsView::RunsView(ApiClient& api, QWidget* parent) : QWidget(parent), api_(api) {
  auto* layout = new QVBoxLayout(this);
  table_ = new QTableWidget(0, static_cast<int>(kColumns.size()), this);
  table_->setObjectName(QStringLiteral("runsTable"));
  table_->setAccessibleName(tr("Runs"));
  table_->setHorizontalHeaderLabels(kColumns);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  layout->addWidget(table_);
  auto* buttons = new QHBoxLayout();
  auto* follow = new QPushButton(tr("&Follow live"), this);
  auto* results = new QPushButton(tr("S&how results"), this);
  auto* remove = new QPushButton(tr("Delete run…"), this);
  follow->setObjectName(QStringLiteral("followButton"));
  results->setObjectName(QStringLiteral("showResultsButton"));
  remove->setObjectName(QStringLiteral("deleteRunButton"));
  buttons->addWidget(follow);
  buttons->addWidget(results);
  buttons->addStretch(1);
  buttons->addWidget(remove);
  layout->addLayout(buttons);

  connect(follow, &QPushButton::clicked, this, [this] {
    if (const std::int64_t run = selectedRun()) {
      emit followRequested(run);
    }
  });
  connect(results, &QPushButton::clicked, this, [this] {
    if (const std::int64_t run = selectedRun()) {
      emit resultsRequested(run);
    }
  });
  connect(table_, &QTableWidget::cellActivated, this, [this](int, int) {
    if (const std::int64_t run = selectedRun()) {
      emit resultsRequested(run);
    }
  });
  connect(remove, &QPushButton::clicked, this, [this] {
    const std::int64_t run = selectedRun();
    if (run == 0 ||
        QMessageBox::question(this, tr("Delete run"),
                              tr("Delete run %1 with its results and charts?").arg(run)) !=
            QMessageBox::Yes) {
      return;
    }
    api_.remove(QStringLiteral("/api/v1/runs/%1").arg(run), [this, run](const ApiReply& reply) {
      if (!reply.ok()) {
        emit message(tr("Run %1 was not deleted: %2").arg(run).arg(reply.error), true);
        return;
      }
      emit message(tr("Deleted run %1.").arg(run), false);
      emit deleted(run);
    });
  });
}

void RunsView::show(const QJsonObject& runs) {
  const std::int64_t selected = selectedRun();
  const QJsonArray list = runs.value(QStringLiteral("runs")).toArray();
  table_->setRowCount(static_cast<int>(list.size()));
  int row = 0;
  for (const QJsonValue value : list) {
    const QJsonObject run = value.toObject();
    QStringList approaches;
    for (const QJsonValue approach : run.value(QStringLiteral("approaches")).toArray()) {
      approaches << approach.toString();
    }
    QString status = run.value(QStringLiteral("status")).toString();
    const QJsonObject progress = run.value(QStringLiteral("progress")).toObject();
    if (run.contains(QStringLiteral("queuePosition"))) {
      status += QStringLiteral(" (#%1 in the queue)")
                    .arg(run.value(QStringLiteral("queuePosition")).toInt());
    }
    if (!progress.isEmpty()) {
      status += QStringLiteral(" (row %1/%2, %3)")
                    .arg(progress.value(QStringLiteral("row")).toInt())
                    .arg(progress.value(QStringLiteral("rows")).toInt())
                    .arg(progress.value(QStringLiteral("step")).toString());
    }
    const QStringList texts = {QString::number(run.value(QStringLiteral("id")).toInteger()),
                               status,
                               run.value(QStringLiteral("scenarioFile")).toString(),
                               approaches.join(QStringLiteral(", ")),
                               timeText(run.value(QStringLiteral("startedEpochMillis"))),
                               timeText(run.value(QStringLiteral("finishedEpochMillis"))),
                               run.value(QStringLiteral("error")).toString()};
    for (int column = 0; column < texts.size(); ++column) {
      auto* item = new QTableWidgetItem(texts[column]);
      item->setToolTip(texts[column]);
      table_->setItem(row, column, item);
    }
    if (run.value(QStringLiteral("id")).toInteger() == selected) {
      table_->selectRow(row);
    }
    ++row;
  }
}

std::int64_t RunsView::selectedRun() const {
  const QList<QTableWidgetItem*> items = table_->selectedItems();
  if (items.isEmpty()) {
    return 0;
  }
  const QTableWidgetItem* id = table_->item(items.front()->row(), 0);
  return id != nullptr ? id->text().toLongLong() : 0;
}

}  // namespace benchd::gui
