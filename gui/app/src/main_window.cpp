#include "main_window.hpp"

#include "api_client.hpp"
#include "api_json.hpp"
#include "event_stream.hpp"
#include "live_view.hpp"
#include "results_view.hpp"
#include "run_panel.hpp"
#include "runs_view.hpp"

#include <benchd/charts/winners_grid_view.hpp>

#include <QAction>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

namespace benchd::gui {

MainWindow::MainWindow(ConnectionSettings settings, QWidget* parent)
    : QMainWindow(parent), settings_(std::move(settings)) {
  setWindowTitle(tr("benchd"));
  api_ = new ApiClient(this);
  events_ = new EventStream(*api_, this);

  auto* splitter = new QSplitter(Qt::Horizontal, this);
  run_panel_ = new RunPanel(*api_, splitter);
  auto* right = new QWidget(splitter);
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  message_bar_ = new QLabel(right);
  message_bar_->setObjectName(QStringLiteral("messageBar"));
  message_bar_->setWordWrap(true);
  message_bar_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_bar_->setVisible(false);
  right_layout->addWidget(message_bar_);
  tabs_ = new QTabWidget(right);
  right_layout->addWidget(tabs_, 1);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({400, 966});
  setCentralWidget(splitter);

  live_ = new LiveView(tabs_);
  tabs_->addTab(live_, tr("&Live"));
  auto* winners_page = new QWidget(tabs_);
  auto* winners_layout = new QVBoxLayout(winners_page);
  winners_caption_ =
      new QLabel(tr("The winners grid of the followed run appears here."), winners_page);
  winners_caption_->setWordWrap(true);
  winners_layout->addWidget(winners_caption_);
  auto* scroll = new QScrollArea(winners_page);
  winners_ = new charts::WinnersGridView(scroll);
  winners_->setObjectName(QStringLiteral("winnersGrid"));
  scroll->setWidget(winners_);
  // The grid takes the tab's size and draws itself to fit (WinnersGridView::scale); the scroll
  // bars appear only below its minimum size.
  scroll->setWidgetResizable(true);
  scroll->setBackgroundRole(QPalette::Base);
  winners_layout->addWidget(scroll, 1);
  tabs_->addTab(winners_page, tr("&Winners"));
  runs_ = new RunsView(*api_, tabs_);
  tabs_->addTab(runs_, tr("&Runs"));
  results_ = new ResultsView(*api_, tabs_);
  tabs_->addTab(results_, tr("Resul&ts"));

  connection_ = new QLabel(this);
  connection_->setObjectName(QStringLiteral("connectionLabel"));
  statusBar()->addPermanentWidget(connection_);

  QMenu* menu = menuBar()->addMenu(tr("&Daemon"));
  QAction* edit = menu->addAction(tr("&Connection…"));
  edit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_K));
  connect(edit, &QAction::triggered, this, &MainWindow::editConnection);
  QAction* refresh = menu->addAction(tr("&Refresh lists"));
  refresh->setShortcut(QKeySequence::Refresh);
  connect(refresh, &QAction::triggered, run_panel_, &RunPanel::refresh);
  menu->addSeparator();
  QAction* quit = menu->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QWidget::close);

  connect(api_, &ApiClient::reachabilityChanged, this, &MainWindow::setReachable);
  connect(events_, &EventStream::received, this, &MainWindow::onEvent);
  connect(events_, &EventStream::interrupted, this, [this](const QString& reason) {
    showMessage(tr("Live stream of run %1 interrupted: %2").arg(followed_run_).arg(reason), true);
  });
  connect(events_, &EventStream::resumed, this,
          [this] { showMessage(tr("Live stream of run %1 resumed.").arg(followed_run_), false); });
  connect(run_panel_, &RunPanel::message, this, &MainWindow::showMessage);
  connect(run_panel_, &RunPanel::runStarted, this, [this](std::int64_t run, const QJsonObject&) {
    follow(run);
    tabs_->setCurrentWidget(live_);
    poll();
  });
  connect(runs_, &RunsView::message, this, &MainWindow::showMessage);
  connect(runs_, &RunsView::followRequested, this, [this](std::int64_t run) {
    follow(run);
    tabs_->setCurrentWidget(live_);
  });
  connect(runs_, &RunsView::resultsRequested, this, [this](std::int64_t run) {
    results_->showRun(run);
    loadWinners(run);
    tabs_->setCurrentWidget(results_);
  });
  connect(runs_, &RunsView::deleted, this, [this](std::int64_t) { poll(); });
  connect(results_, &ResultsView::message, this, &MainWindow::showMessage);
  connect(winners_, &charts::WinnersGridView::cellSelected, this,
          [this](const QString& description) { statusBar()->showMessage(description); });

  poll_.setInterval(static_cast<int>(kPollInterval.count()));
  connect(&poll_, &QTimer::timeout, this, &MainWindow::poll);
  resize(1366, 768);
  connectTo(settings_, false);
}

MainWindow::~MainWindow() = default;

void MainWindow::connectTo(const ConnectionSettings& settings, bool remember) {
  settings_ = settings;
  if (remember) {
    settings_.save();
  }
  events_->stop();
  followed_run_ = 0;
  api_->setEndpoint(settings_.url, settings_.token);
  reachable_ = false;
  ever_reached_ = false;
  connection_->setText(tr("Connecting to %1…").arg(settings_.url.toString()));
  run_panel_->refresh();
  poll();
  poll_.start();
}

QString MainWindow::connectionText() const {
  return connection_->text();
}

QString MainWindow::lastMessage() const {
  return message_bar_->text();
}

void MainWindow::setReachable(bool reachable, const QString& reason) {
  if (reachable == reachable_ && (reachable || connection_->text().contains(reason))) {
    return;
  }
  const bool came_back = reachable && !reachable_;
  reachable_ = reachable;
  if (reachable) {
    connection_->setText(tr("Connected to %1").arg(settings_.url.toString()));
    connection_->setStyleSheet(QString());
    if (came_back && ever_reached_) {
      showMessage(tr("The daemon is back."), false);
      run_panel_->refresh();
    }
    ever_reached_ = true;
  } else {
    connection_->setText(tr("Daemon unreachable, retrying every %1 s: %2")
                             .arg(kPollInterval.count() / 1000)
                             .arg(reason));
    connection_->setStyleSheet(QStringLiteral("color: #b00000"));
    showMessage(tr("Cannot reach the daemon: %1").arg(reason), true);
  }
}

void MainWindow::poll() {
  api_->get(QStringLiteral("/api/v1/runs?limit=100"), [this](const ApiReply& reply) {
    if (!reply.ok()) {
      if (reply.status == 401) {
        showMessage(tr("The daemon refused the token (%1). Set it under Daemon → Connection.")
                        .arg(reply.error),
                    true);
      }
      return;
    }
    const QJsonObject runs = reply.json().object();
    runs_->show(runs);
    if (followed_run_ != 0) {
      return;
    }
    for (const QJsonValue value : runs.value(QStringLiteral("runs")).toArray()) {
      const QJsonObject run = value.toObject();
      if (run.value(QStringLiteral("status")).toString() == QLatin1String("running")) {
        follow(run.value(QStringLiteral("id")).toInteger());
        return;
      }
    }
  });
}

void MainWindow::follow(std::int64_t run) {
  followed_run_ = run;
  live_->beginRun(run);
  run_panel_->setActiveRun(run);
  winners_run_ = 0;
  events_->follow(run, 0);
  loadWinners(run);
}

void MainWindow::onEvent(const QString& type, const QJsonObject& payload) {
  live_->onEvent(type, payload);
  if (type == QLatin1String("row")) {
    loadWinners(followed_run_);
  } else if (type == QLatin1String("end")) {
    const QString status = payload.value(QStringLiteral("status")).toString();
    const QString error = payload.value(QStringLiteral("error")).toString();
    showMessage(tr("Run %1 %2%3")
                    .arg(followed_run_)
                    .arg(status)
                    .arg(error.isEmpty() ? QStringLiteral(".") : QStringLiteral(": ") + error),
                status == QLatin1String("failed"));
    loadWinners(followed_run_);
    run_panel_->setActiveRun(0);
    poll();
  }
}

void MainWindow::loadWinners(std::int64_t run) {
  if (run == 0) {
    return;
  }
  winners_run_ = run;
  api_->get(QStringLiteral("/api/v1/runs/%1/winners").arg(run), [this, run](const ApiReply& reply) {
    if (run != winners_run_) {
      return;
    }
    if (!reply.ok()) {
      if (reply.status != 404) {
        showMessage(tr("Cannot load the winners of run %1: %2").arg(run).arg(reply.error), true);
      }
      return;
    }
    const QJsonObject document = reply.json().object();
    winners_->setGrid(winnersGridFromJson(document));
    winners_caption_->setText(
        tr("Run %1: %2 contests. Arrow keys walk the cells; the status bar reads the selected one.")
            .arg(run)
            .arg(document.value(QStringLiteral("contests")).toInteger()));
  });
}

void MainWindow::showMessage(const QString& text, bool error) {
  message_bar_->setText(text);
  message_bar_->setStyleSheet(
      error ? QStringLiteral("background: #fde0e0; color: #800000; padding: 4px")
            : QStringLiteral("background: #e0f0e0; color: #004000; padding: 4px"));
  message_bar_->setVisible(true);
  statusBar()->showMessage(text, 10'000);
}

void MainWindow::editConnection() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Connection"));
  auto* form = new QFormLayout(&dialog);
  auto* url = new QLineEdit(settings_.url.toString(), &dialog);
  auto* token = new QLineEdit(settings_.token, &dialog);
  token->setEchoMode(QLineEdit::Password);
  form->addRow(tr("Daemon &URL:"), url);
  form->addRow(tr("&Token:"), token);
  auto* read = new QPushButton(tr("Read the local &token file"), &dialog);
  form->addRow(QString(), read);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
  form->addRow(buttons);
  connect(read, &QPushButton::clicked, &dialog, [token] {
    if (const auto found = readTokenFile(defaultTokenFile())) {
      token->setText(*found);
    } else {
      token->setPlaceholderText(QObject::tr("cannot read %1").arg(defaultTokenFile()));
    }
  });
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  if (dialog.exec() != QDialog::Accepted) {
    return;
  }
  const QUrl chosen = QUrl::fromUserInput(url->text());
  if (!chosen.isValid() || (chosen.scheme() != QLatin1String("http"))) {
    showMessage(tr("'%1' is not an http:// URL.").arg(url->text()), true);
    return;
  }
  connectTo({chosen, token->text().trimmed()}, true);
}

}  // namespace benchd::gui
