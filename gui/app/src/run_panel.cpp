#include "run_panel.hpp"

#include "api_client.hpp"

#include <benchd/common/units.hpp>
#include <benchd/scenario/phase_limits.hpp>

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace benchd::gui {
namespace {

const QStringList kRowColumns = {QStringLiteral("Scenario"),    QStringLiteral("Workload"),
                                 QStringLiteral("Depth"),       QStringLiteral("Delay ms"),
                                 QStringLiteral("Connections"), QStringLiteral("Req/s"),
                                 QStringLiteral("Warm-up s"),   QStringLiteral("Test s")};

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
  return item;
}

QString integer(const QJsonValue& value) {
  return value.isNull() ? QStringLiteral("-") : QString::number(value.toInteger());
}

}  // namespace

RunPanel::RunPanel(ApiClient& api, QWidget* parent) : QWidget(parent), api_(api) {
  auto* layout = new QVBoxLayout(this);

  auto* approaches_box = new QGroupBox(tr("&Approaches"), this);
  auto* approaches_layout = new QVBoxLayout(approaches_box);
  approaches_ = new QListWidget(approaches_box);
  approaches_->setObjectName(QStringLiteral("approachList"));
  approaches_->setAccessibleName(tr("Approaches to run"));
  approaches_layout->addWidget(approaches_);
  layout->addWidget(approaches_box, 2);

  auto* file_box = new QGroupBox(tr("Scenario &file"), this);
  auto* file_layout = new QVBoxLayout(file_box);
  auto* file_row = new QHBoxLayout();
  files_ = new QComboBox(file_box);
  files_->setObjectName(QStringLiteral("scenarioFileCombo"));
  files_->setAccessibleName(tr("Scenario file"));
  files_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  file_row->addWidget(files_, 1);
  auto* upload = new QPushButton(tr("&Upload…"), file_box);
  upload->setObjectName(QStringLiteral("uploadButton"));
  upload->setToolTip(tr("Upload a scenario CSV file to the daemon (checked before it is kept)"));
  file_row->addWidget(upload);
  file_layout->addLayout(file_row);
  rows_ = new QTableWidget(0, static_cast<int>(kRowColumns.size()), file_box);
  rows_->setObjectName(QStringLiteral("scenarioRows"));
  rows_->setHorizontalHeaderLabels(kRowColumns);
  rows_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  rows_->verticalHeader()->setVisible(false);
  rows_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  file_layout->addWidget(rows_);
  layout->addWidget(file_box, 3);

  auto* overrides = new QFormLayout();
  warmup_ = new QSpinBox(this);
  warmup_->setObjectName(QStringLiteral("warmupSeconds"));
  warmup_->setRange(-1, static_cast<int>(scenario::kMaxPhaseSeconds));
  warmup_->setSpecialValueText(tr("as in the file"));
  warmup_->setValue(-1);
  warmup_->setSuffix(tr(" s"));
  test_ = new QSpinBox(this);
  test_->setObjectName(QStringLiteral("testSeconds"));
  test_->setRange(0, static_cast<int>(scenario::kMaxPhaseSeconds));
  test_->setSpecialValueText(tr("as in the file"));
  test_->setValue(0);
  test_->setSuffix(tr(" s"));
  repeat_ = new QSpinBox(this);
  repeat_->setObjectName(QStringLiteral("repeat"));
  repeat_->setRange(1, static_cast<int>(scenario::kMaxRepeats));
  repeat_->setValue(static_cast<int>(scenario::kDefaultRepeats));
  repeat_->setSuffix(tr(" runs"));
  // "1 run", "5 runs": a spin box has one suffix, so it follows the value.
  connect(repeat_, &QSpinBox::valueChanged, this,
          [this](int runs) { repeat_->setSuffix(runs == 1 ? tr(" run") : tr(" runs")); });
  repeat_->setToolTip(
      tr("Runs of every (row, approach), in rounds of a shuffled order. The winners grid tests "
         "each lead round by round and calls only significant ones; 10 (the default) find a lead "
         "that many cells show. 1 is a quick look whose grid shows unconfirmed leads."));
  memory_cap_ = new QSpinBox(this);
  memory_cap_->setObjectName(QStringLiteral("memoryCap"));
  // In MiB, 4 MiB to 1 TiB as the daemon checks; 0 shows "none".
  memory_cap_->setRange(0, 1024 * 1024);
  memory_cap_->setSpecialValueText(tr("none"));
  memory_cap_->setValue(0);
  memory_cap_->setSuffix(tr(" MiB"));
  memory_cap_->setToolTip(
      tr("Caps each worker's process tree at this much memory through the kernel's cgroups; a "
         "worker the OOM killer ends fails its row as \"OOM — did not complete\". The daemon "
         "refuses a cap where its machine offers none, saying why."));
  overrides->addRow(tr("War&m-up:"), warmup_);
  overrides->addRow(tr("T&est:"), test_);
  overrides->addRow(tr("&Repeat:"), repeat_);
  overrides->addRow(tr("Memory &cap:"), memory_cap_);
  layout->addLayout(overrides);

  auto* buttons = new QHBoxLayout();
  start_ = new QPushButton(tr("&Start run"), this);
  start_->setObjectName(QStringLiteral("startButton"));
  stop_ = new QPushButton(tr("Sto&p run"), this);
  stop_->setObjectName(QStringLiteral("stopButton"));
  stop_->setEnabled(false);
  buttons->addWidget(start_);
  buttons->addWidget(stop_);
  layout->addLayout(buttons);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  layout->addWidget(status_);

  connect(files_, &QComboBox::currentTextChanged, this, &RunPanel::showRows);
  connect(start_, &QPushButton::clicked, this, &RunPanel::start);
  connect(stop_, &QPushButton::clicked, this, &RunPanel::stop);
  connect(upload, &QPushButton::clicked, this, &RunPanel::upload);
}

void RunPanel::refresh() {
  loadApproaches();
  loadScenarioFiles();
}

void RunPanel::setActiveRun(std::int64_t run) {
  active_run_ = run;
  stop_->setEnabled(run != 0);
}

void RunPanel::loadApproaches() {
  api_.get(QStringLiteral("/api/v1/approaches"), [this](const ApiReply& reply) {
    if (!reply.ok()) {
      emit message(tr("Cannot list the approaches: %1").arg(reply.error), true);
      return;
    }
    QStringList checked;
    for (int index = 0; index < approaches_->count(); ++index) {
      if (approaches_->item(index)->checkState() == Qt::Checked) {
        checked << approaches_->item(index)->text();
      }
    }
    const bool first_load = approaches_->count() == 0;
    approaches_->clear();
    const QJsonObject document = reply.json().object();
    for (const QJsonValue value : document.value(QStringLiteral("accepted")).toArray()) {
      const QJsonObject approach = value.toObject();
      const QString name = approach.value(QStringLiteral("name")).toString();
      auto* item = new QListWidgetItem(name, approaches_);
      item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled | Qt::ItemIsSelectable);
      item->setCheckState(first_load || checked.contains(name) ? Qt::Checked : Qt::Unchecked);
      item->setToolTip(QStringLiteral("%1 %2\n%3")
                           .arg(name, approach.value(QStringLiteral("version")).toString(),
                                approach.value(QStringLiteral("description")).toString()));
    }
    const QJsonArray rejected = document.value(QStringLiteral("rejected")).toArray();
    if (!rejected.isEmpty()) {
      QStringList reasons;
      for (const QJsonValue value : rejected) {
        const QJsonObject plugin = value.toObject();
        reasons << QStringLiteral("%1: %2").arg(plugin.value(QStringLiteral("path")).toString(),
                                                plugin.value(QStringLiteral("reason")).toString());
      }
      approaches_->setToolTip(tr("Rejected plugins:\n%1").arg(reasons.join('\n')));
    }
  });
}

void RunPanel::loadScenarioFiles(const QString& select) {
  api_.get(QStringLiteral("/api/v1/scenario-files"), [this, select](const ApiReply& reply) {
    if (!reply.ok()) {
      emit message(tr("Cannot list the scenario files: %1").arg(reply.error), true);
      return;
    }
    const QString current = select.isEmpty() ? files_->currentText() : select;
    QSignalBlocker quiet(files_);
    files_->clear();
    for (const QJsonValue value : reply.json().object().value(QStringLiteral("files")).toArray()) {
      files_->addItem(value.toObject().value(QStringLiteral("name")).toString());
    }
    const int found =
        files_->findText(current.isEmpty() ? QStringLiteral("scenarios-ci.csv") : current);
    files_->setCurrentIndex(std::max(found, 0));
    quiet.unblock();
    showRows(files_->currentText());
  });
}

void RunPanel::showRows(const QString& name) {
  rows_->setRowCount(0);
  if (name.isEmpty()) {
    return;
  }
  api_.get(QStringLiteral("/api/v1/scenario-files/%1").arg(name),
           [this, name](const ApiReply& reply) {
             if (files_->currentText() != name) {
               return;  // another file was chosen meanwhile
             }
             if (!reply.ok()) {
               emit message(tr("Cannot read %1: %2").arg(name, reply.error), true);
               return;
             }
             const QJsonArray rows = reply.json().object().value(QStringLiteral("rows")).toArray();
             rows_->setRowCount(static_cast<int>(rows.size()));
             int index = 0;
             for (const QJsonValue value : rows) {
               const QJsonObject row = value.toObject();
               const QStringList texts = {row.value(QStringLiteral("scenario")).toString(),
                                          row.value(QStringLiteral("workload")).toString(),
                                          integer(row.value(QStringLiteral("delayCallDepth"))),
                                          integer(row.value(QStringLiteral("delayInMillis"))),
                                          integer(row.value(QStringLiteral("connections"))),
                                          integer(row.value(QStringLiteral("requestsPerSecond"))),
                                          integer(row.value(QStringLiteral("warmupSeconds"))),
                                          integer(row.value(QStringLiteral("testSeconds")))};
               for (int column = 0; column < texts.size(); ++column) {
                 rows_->setItem(index, column, cell(texts[column]));
               }
               ++index;
             }
           });
}

void RunPanel::start() {
  QJsonObject request;
  request.insert(QStringLiteral("scenarioFile"), files_->currentText());
  QJsonArray approaches;
  for (int index = 0; index < approaches_->count(); ++index) {
    if (approaches_->item(index)->checkState() == Qt::Checked) {
      approaches.append(approaches_->item(index)->text());
    }
  }
  if (approaches.isEmpty()) {
    emit message(tr("Choose at least one approach."), true);
    return;
  }
  request.insert(QStringLiteral("approaches"), approaches);
  if (warmup_->value() >= 0) {
    request.insert(QStringLiteral("warmupSeconds"), warmup_->value());
  }
  if (test_->value() > 0) {
    request.insert(QStringLiteral("testSeconds"), test_->value());
  }
  request.insert(QStringLiteral("repeat"), repeat_->value());
  if (memory_cap_->value() > 0) {
    // Bytes: a JSON integer the daemon reads exactly (1 TiB is far below 2^53).
    request.insert(QStringLiteral("memoryCap"),
                   static_cast<qint64>(memory_cap_->value() * common::kBytesPerMebibyte));
  }
  start_->setEnabled(false);
  api_.post(QStringLiteral("/api/v1/runs"), QJsonDocument(request).toJson(QJsonDocument::Compact),
            [this](const ApiReply& reply) {
              start_->setEnabled(true);
              if (!reply.ok()) {
                emit message(tr("The daemon did not start the run: %1").arg(reply.error), true);
                return;
              }
              const QJsonObject run = reply.json().object();
              const std::int64_t id = run.value(QStringLiteral("id")).toInteger();
              status_->setText(
                  tr("Run %1 %2.").arg(id).arg(run.value(QStringLiteral("status")).toString()));
              emit runStarted(id, run);
            });
}

void RunPanel::stop() {
  if (active_run_ == 0) {
    return;
  }
  const std::int64_t run = active_run_;
  api_.post(QStringLiteral("/api/v1/runs/%1/stop").arg(run), {},
            [this, run](const ApiReply& reply) {
              if (!reply.ok()) {
                emit message(tr("Cannot stop run %1: %2").arg(run).arg(reply.error), true);
                return;
              }
              emit message(tr("Stopping run %1…").arg(run), false);
            });
}

void RunPanel::upload() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Upload a scenario file"), QString(),
                                                    tr("Scenario files (*.csv)"));
  if (!path.isEmpty()) {
    uploadFile(path);
  }
}

void RunPanel::uploadFile(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    emit message(tr("Cannot read %1: %2").arg(path, file.errorString()), true);
    return;
  }
  const QString name = QFileInfo(path).fileName();
  api_.put(QStringLiteral("/api/v1/scenario-files/%1").arg(name), file.readAll(), "text/csv",
           [this, name](const ApiReply& reply) {
             if (!reply.ok()) {
               emit message(tr("%1 was not uploaded: %2").arg(name, reply.error), true);
               return;
             }
             emit message(tr("Uploaded %1.").arg(name), false);
             loadScenarioFiles(name);
           });
}

}  // namespace benchd::gui
