// benchd-gui against a real `benchd serve` on loopback (offscreen): it connects with the token
// file, lists the approaches and the scenario file's rows, starts a scenarios-ci.csv run whose
// charts receive a point per second, fills the winners grid, shows the stored charts and a
// comparison, stops a run, and reports a daemon that goes away, then comes back.
//
// Also checks that the GUI's reading of the API's seconds equals benchd-report's reading of the
// store for the same seconds, so the window and the PNGs draw the same numbers.

#include "api_json.hpp"
#include "build_paths.hpp"
#include "live_view.hpp"
#include "main_window.hpp"
#include "run_panel.hpp"
#include "scenario_csv.hpp"

#include <benchd/charts/capacity_chart.hpp>
#include <benchd/charts/scenario_chart.hpp>
#include <benchd/charts/winners_grid_view.hpp>
#include <benchd/results/presented_second.hpp>
#include <benchd/results/winners_markdown.hpp>
#include <benchd/store/result_store.hpp>

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QListWidget>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <csignal>
#include <memory>
#include <sys/prctl.h>

using benchd::charts::ScenarioChart;
using benchd::gui::MainWindow;

namespace {

/// `benchd serve` in a child process with its state in `dir`; port 0 picks one.
class DaemonProcess {
 public:
  DaemonProcess(const QString& dir, int port) {
    QFile config(dir + QStringLiteral("/benchd.conf"));
    config.open(QIODevice::WriteOnly);
    config.write(QStringLiteral("port = %1\nstate_dir = %2/state\n").arg(port).arg(dir).toUtf8());
    config.close();
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    // The daemon dies with this test process, also when the test ends without its destructors
    // (a sanitizer report, qFatal): no `benchd serve` may outlive the suite.
    process_.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    process_.start(QString::fromStdString(benchd::testing::cliPath()),
                   {QStringLiteral("serve"), QStringLiteral("--config"), config.fileName()});
    QDeadlineTimer deadline(30'000);
    const QRegularExpression listening(
        QStringLiteral(R"(listening on (http://127\.0\.0\.1:(\d+)))"));
    QString seen;
    while (port_ == 0 && !deadline.hasExpired() && process_.state() != QProcess::NotRunning) {
      process_.waitForReadyRead(200);
      seen += QString::fromUtf8(process_.readAllStandardOutput());
      const QRegularExpressionMatch match = listening.match(seen);
      if (match.hasMatch()) {
        url_ = QUrl(match.captured(1));
        port_ = match.captured(2).toInt();
      }
    }
    QFile token(dir + QStringLiteral("/state/token"));
    if (token.open(QIODevice::ReadOnly)) {
      token_ = QString::fromUtf8(token.readLine()).trimmed();
    }
  }
  ~DaemonProcess() { kill(); }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  void kill() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(10'000);
    }
  }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] QUrl url() const { return url_; }
  [[nodiscard]] QString token() const { return token_; }

 private:
  QProcess process_;
  int port_ = 0;
  QUrl url_;
  QString token_;
};

QJsonDocument getJson(const QUrl& base, const QString& token, const QString& path) {
  QNetworkAccessManager network;
  QUrl url = base;
  url.setPath(path);
  QNetworkRequest request(url);
  request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
  QNetworkReply* reply = network.get(request);
  QSignalSpy done(reply, &QNetworkReply::finished);
  done.wait(10'000);
  const QJsonDocument document = QJsonDocument::fromJson(reply->readAll());
  reply->deleteLater();
  return document;
}

bool near(double left, double right) {
  return std::abs(left - right) <= 1e-9 * std::max({1.0, std::abs(left), std::abs(right)});
}

void saveScreenshot(QWidget& widget, const QString& name) {
  const QString folder = QString::fromStdString(benchd::testing::buildDir() + "/screenshots");
  QDir().mkpath(folder);
  QVERIFY(widget.grab().save(folder + QStringLiteral("/") + name));
}

template <typename T>
T* child(QObject& parent, const char* name) {
  T* found = parent.findChild<T*>(QString::fromLatin1(name));
  if (found == nullptr) {
    qFatal("no %s in the window", name);
  }
  return found;
}

/// Checks only the approaches in `wanted`.
void chooseApproaches(QListWidget& list, const QStringList& wanted) {
  for (int index = 0; index < list.count(); ++index) {
    list.item(index)->setCheckState(wanted.contains(list.item(index)->text()) ? Qt::Checked
                                                                              : Qt::Unchecked);
  }
}

}  // namespace

class GuiAppTest : public QObject {
  Q_OBJECT

 private slots:
  void init() { QVERIFY(state_.isValid()); }

  void aRunFromStartToWinnersAndResults() {
    DaemonProcess daemon(state_.path(), 0);
    QVERIFY2(daemon.port() != 0, "the daemon did not start");
    MainWindow window({daemon.url(), daemon.token()});
    window.show();

    auto* approaches = child<QListWidget>(window, "approachList");
    QTRY_VERIFY_WITH_TIMEOUT(approaches->count() >= 2, 30'000);
    QTRY_VERIFY_WITH_TIMEOUT(window.reachable(), 10'000);
    QVERIFY(window.connectionText().startsWith(QStringLiteral("Connected to")));
    auto* files = child<QComboBox>(window, "scenarioFileCombo");
    QTRY_COMPARE_WITH_TIMEOUT(files->currentText(), QStringLiteral("scenarios-ci.csv"), 10'000);
    auto* rows = child<QTableWidget>(window, "scenarioRows");
    QTRY_COMPARE_WITH_TIMEOUT(rows->rowCount(), 4, 10'000);
    QCOMPARE(rows->item(0, 0)->text(), QStringLiteral("ci-get-time-no-delay"));

    chooseApproaches(*approaches,
                     {QStringLiteral("callbacks-asio"), QStringLiteral("coroutines-asio")});
    child<QSpinBox>(window, "warmupSeconds")->setValue(0);
    child<QSpinBox>(window, "testSeconds")->setValue(3);
    auto* repeat = child<QSpinBox>(window, "repeat");
    QCOMPARE(repeat->value(), 10);  // the default rounds
    QCOMPARE(repeat->text(), QStringLiteral("10 runs"));
    repeat->setValue(1);
    QCOMPARE(repeat->text(), QStringLiteral("1 run"));
    auto* memory_cap = child<QSpinBox>(window, "memoryCap");
    QCOMPARE(memory_cap->text(), QStringLiteral("none"));
    memory_cap->setValue(512);  // far above what these rows need: a cap that changes nothing
    QTest::mouseClick(child<QPushButton>(window, "startButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.followedRun() != 0, 10'000);
    const std::int64_t run = window.followedRun();

    auto* live = child<ScenarioChart>(window, "liveChart");
    QTRY_VERIFY_WITH_TIMEOUT(live->pointCount() >= 2, 60'000);
    QVERIFY(child<QComboBox>(window, "liveChartChooser")->count() >= 1);
    saveScreenshot(window, QStringLiteral("main-window-live.png"));

    // The grid fills after the first result and is complete at the end.
    QTRY_VERIFY_WITH_TIMEOUT(window.winners().hasGrid(), 60'000);
    QTRY_VERIFY_WITH_TIMEOUT(window.lastMessage().contains(QStringLiteral("completed")), 120'000);
    auto* progress = child<QProgressBar>(window, "liveProgress");
    QTRY_COMPARE_WITH_TIMEOUT(progress->value(), progress->maximum(), 10'000);
    QTRY_COMPARE_WITH_TIMEOUT(window.winners().grid().scenarios.size(), std::size_t{4}, 10'000);
    // One run each: the grid says its wins are unconfirmed leads.
    QVERIFY(!window.winners().grid().confirmed);
    QVERIFY(window.winners().grid().rule_note.find("Unconfirmed leads") != std::string::npos);
    QCOMPARE(window.winners().grid().standings.size(), std::size_t{2});
    window.winners().resize(window.winners().sizeHint());
    saveScreenshot(window.winners(), QStringLiteral("winners-grid.png"));

    // The cap went with the request: the run's options name it, and its results record it.
    const QJsonObject started =
        getJson(daemon.url(), daemon.token(), QStringLiteral("/api/v1/runs/%1").arg(run)).object();
    QVERIFY2(started.value(QStringLiteral("options"))
                 .toString()
                 .contains(QStringLiteral("Memory cap: 512 MiB per worker")),
             qPrintable(started.value(QStringLiteral("options")).toString()));

    // The results browser draws a stored result; the run compared with itself changes nothing.
    auto* runs = child<QTableWidget>(window, "runsTable");
    QTRY_VERIFY_WITH_TIMEOUT(runs->rowCount() >= 1, 10'000);
    runs->selectRow(0);
    QTest::mouseClick(child<QPushButton>(window, "showResultsButton"), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(child<QListWidget>(window, "resultList")->count(), 8, 10'000);
    QTRY_VERIFY_WITH_TIMEOUT(child<ScenarioChart>(window, "resultChart")->pointCount() >= 2,
                             10'000);
    child<QSpinBox>(window, "compareBase")->setValue(static_cast<int>(run));
    child<QSpinBox>(window, "compareOther")->setValue(static_cast<int>(run));
    QTest::mouseClick(child<QPushButton>(window, "compareButton"), Qt::LeftButton);
    auto* changes = child<QTableWidget>(window, "compareTable");
    QTRY_VERIFY_WITH_TIMEOUT(changes->rowCount() > 0, 10'000);
    for (int row = 0; row < changes->rowCount(); ++row) {
      QCOMPARE(changes->item(row, 6)->text(), QStringLiteral("neutral"));
    }

    // The window decodes the API into the store's model, and draws it as the renderer does.
    const QJsonDocument seconds = getJson(
        daemon.url(), daemon.token(),
        QStringLiteral("/api/v1/runs/%1/results/ci-get-movies-call-depth-1/coroutines-asio/seconds")
            .arg(run));
    const QJsonArray from_api = seconds.object().value(QStringLiteral("seconds")).toArray();
    const benchd::store::ResultStore store(
        (state_.path() + QStringLiteral("/state/benchd.sqlite")).toStdString());
    const auto result = store.findResult(run, "ci-get-movies-call-depth-1", "coroutines-asio");
    QVERIFY(result.has_value());
    const std::vector<benchd::results::SecondRecord> stored =
        store.seconds(*result, benchd::measurement::PhaseKind::kTest);
    QCOMPARE(static_cast<std::size_t>(from_api.size()), stored.size());
    QVERIFY(!stored.empty());
    // Every value the charts draw arrives as the daemon presented it: nothing converted twice.
    for (std::size_t index = 0; index < stored.size(); ++index) {
      const benchd::results::PresentedSecond api =
          benchd::gui::presentedSecondFromJson(from_api[static_cast<qsizetype>(index)].toObject());
      const benchd::results::PresentedSecond direct = benchd::results::presentSecond(stored[index]);
      const double api_values[] = {api.seconds,
                                   api.latency_p50_millis,
                                   api.latency_p90_millis,
                                   api.latency_p99_millis,
                                   api.latency_max_millis,
                                   api.ok_per_second,
                                   api.failed_per_second,
                                   api.host_cpu_user_percent,
                                   api.host_cpu_system_percent,
                                   api.host_cpu_iowait_percent,
                                   api.worker_cpu_percent,
                                   api.other_cpu_percent,
                                   api.other_ram_percent,
                                   api.worker_heap_mib,
                                   api.worker_rss_mib,
                                   api.host_ram_used_percent,
                                   api.worker_threads,
                                   api.worker_open_fds,
                                   api.host_tcp_sockets,
                                   api.tcp_active_opens_per_second,
                                   api.tcp_passive_opens_per_second,
                                   api.loopback_rx_mbps,
                                   api.loopback_tx_mbps,
                                   api.database_cpu_percent,
                                   api.database_mib};
      const double store_values[] = {direct.seconds,
                                     direct.latency_p50_millis,
                                     direct.latency_p90_millis,
                                     direct.latency_p99_millis,
                                     direct.latency_max_millis,
                                     direct.ok_per_second,
                                     direct.failed_per_second,
                                     direct.host_cpu_user_percent,
                                     direct.host_cpu_system_percent,
                                     direct.host_cpu_iowait_percent,
                                     direct.worker_cpu_percent,
                                     direct.other_cpu_percent,
                                     direct.other_ram_percent,
                                     direct.worker_heap_mib,
                                     direct.worker_rss_mib,
                                     direct.host_ram_used_percent,
                                     direct.worker_threads,
                                     direct.worker_open_fds,
                                     direct.host_tcp_sockets,
                                     direct.tcp_active_opens_per_second,
                                     direct.tcp_passive_opens_per_second,
                                     direct.loopback_rx_mbps,
                                     direct.loopback_tx_mbps,
                                     direct.database_cpu_percent,
                                     direct.database_mib};
      for (std::size_t value = 0; value < std::size(api_values); ++value) {
        QVERIFY2(near(api_values[value], store_values[value]),
                 qPrintable(QStringLiteral("second %1 value %2: API %3, store %4")
                                .arg(index)
                                .arg(value)
                                .arg(api_values[value])
                                .arg(store_values[value])));
      }
      QCOMPARE(api.failed, direct.failed);
      QCOMPARE(api.database_present, direct.database_present);
    }
    QVERIFY(benchd::results::presentSecond(stored.back()).loopback_rx_mbps > 0.0);
    // The rest of the host holds memory (the OS at least): the share is measured, not 0.
    QVERIFY(benchd::results::presentSecond(stored.back()).other_ram_percent > 0.0);
  }

  void theWinnersResultsThatDidNotCompleteAreDecoded() {
    // As the API writes them (api/openapi.yaml, Winners.incomplete).
    const QJsonObject oom{{"scenario", "many"},
                          {"approach", "threads-asio"},
                          {"failedRuns", 2},
                          {"runs", 3},
                          {"outOfMemory", true},
                          {"outcome", "OOM — did not complete (cap 16 MiB, peak 16 MiB)"},
                          {"reason",
                           "the worker was ended at its memory cap: OOM — did not "
                           "complete (cap 16 MiB, peak 16 MiB)"}};
    const benchd::results::WinnersGrid grid =
        benchd::gui::winnersGridFromJson(QJsonObject{{"incomplete", QJsonArray{oom}}});
    QCOMPARE(grid.incomplete.size(), std::size_t{1});
    QCOMPARE(grid.incomplete[0].scenario, std::string("many"));
    QCOMPARE(grid.incomplete[0].approach, std::string("threads-asio"));
    QCOMPARE(grid.incomplete[0].failed_runs, std::size_t{2});
    QCOMPARE(grid.incomplete[0].runs, std::size_t{3});
    QVERIFY(grid.incomplete[0].out_of_memory);
    QCOMPARE(benchd::results::incompleteOutcomeText(grid.incomplete[0]),
             std::string("OOM — did not complete (cap 16 MiB, peak 16 MiB)"));
  }

  void theDatabaseOfASecondIsDecodedAndNullMeansNone() {
    // A second as the API writes it for a postgres row (api/openapi.yaml, Second).
    const QJsonObject host{{"cpuUserPercent", 50.0},
                           {"cpuSystemPercent", 10.0},
                           {"otherCpuPercent", 10.0},
                           {"intervalSeconds", 1.0}};
    const QJsonObject worker{
        {"cpuPercent", 50.0}, {"rssMiB", 20.0}, {"heapMiB", 4.0}, {"threads", 8}, {"openFds", 40}};
    QJsonObject second{
        {"second", 3},
        {"endSeconds", 4.0},
        {"host", host},
        {"worker", worker},
        {"database", QJsonObject{{"cpuPercent", 40.0}, {"mib", 48.0}, {"processes", 9}}}};
    const benchd::results::PresentedSecond drawn = benchd::gui::presentedSecondFromJson(second);
    QVERIFY(drawn.database_present);
    QCOMPARE(drawn.database_cpu_percent, 40.0);
    QCOMPARE(drawn.database_mib, 48.0);
    QCOMPARE(drawn.other_cpu_percent, 10.0);
    QCOMPARE(drawn.worker_rss_mib, 20.0);
    QCOMPARE(drawn.seconds, 4.0);

    second["database"] = QJsonValue::Null;  // every row but a postgres row's
    const benchd::results::PresentedSecond without = benchd::gui::presentedSecondFromJson(second);
    QVERIFY(!without.database_present);
    QCOMPARE(without.database_mib, 0.0);
  }

  void theLiveViewDrawsACapacityRowsTrialsAndStartsOverWithTheNext() {
    // Trial events as the API writes them (api/openapi.yaml, TrialEvent).
    const auto trial = [](const char* scenario, const char* approach, double rate, double p99,
                          const char* outcome) {
      return QJsonObject{{"scenario", scenario},
                         {"approach", approach},
                         {"round", 1},
                         {"goal", "p99<=50ms"},
                         {"goalBoundMillis", 50.0},
                         {"trial", QJsonObject{{"intendedRequestsPerSecond", rate},
                                               {"goalLatencyMillis", p99},
                                               {"outcome", outcome}}}};
    };
    benchd::gui::LiveView live;
    live.beginRun(7);
    live.show();
    QVERIFY(!live.capacityChart().isVisible());
    live.onEvent(QStringLiteral("trial"), trial("held", "a", 1000.0, 3.0, "pass"));
    live.onEvent(QStringLiteral("trial"), trial("held", "a", 2000.0, 90.0, "fail"));
    live.onEvent(QStringLiteral("trial"), trial("held", "b", 1000.0, 4.0, "pass"));
    QVERIFY(live.capacityChart().isVisible());
    QCOMPARE(live.capacityChart().trials().size(), std::size_t{3});
    QCOMPARE(live.capacityChart().pointCount(QStringLiteral("a"), QStringLiteral("fail")),
             std::size_t{1});
    QCOMPARE(live.capacityChart().approaches(), (QStringList{"a", "b"}));
    live.onEvent(QStringLiteral("trial"), trial("other", "a", 500.0, 2.0, "pass"));
    QCOMPARE(live.capacityChart().trials().size(), std::size_t{1});
    live.beginRun(8);
    QVERIFY(!live.capacityChart().isVisible());
  }

  void stopEndsTheRunAndAGoneDaemonIsReported() {
    auto daemon = std::make_unique<DaemonProcess>(state_.path(), 0);
    const int port = daemon->port();
    QVERIFY(port != 0);
    MainWindow window({daemon->url(), daemon->token()});
    window.show();
    auto* approaches = child<QListWidget>(window, "approachList");
    QTRY_VERIFY_WITH_TIMEOUT(approaches->count() >= 1, 30'000);
    QTRY_COMPARE_WITH_TIMEOUT(child<QTableWidget>(window, "scenarioRows")->rowCount(), 4, 10'000);
    chooseApproaches(*approaches, {QStringLiteral("callbacks-asio")});
    child<QSpinBox>(window, "warmupSeconds")->setValue(0);
    child<QSpinBox>(window, "testSeconds")->setValue(60);
    QTest::mouseClick(child<QPushButton>(window, "startButton"), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(child<ScenarioChart>(window, "liveChart")->pointCount() >= 1, 60'000);
    auto* stop = child<QPushButton>(window, "stopButton");
    QVERIFY(stop->isEnabled());
    QTest::mouseClick(stop, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(window.lastMessage().contains(QStringLiteral("stopped")), 60'000);
    QTRY_VERIFY_WITH_TIMEOUT(!stop->isEnabled(), 10'000);

    // Gone: the window says so and keeps working; back on the same port: it notices.
    daemon->kill();
    QTRY_VERIFY_WITH_TIMEOUT(!window.reachable(), 15'000);
    QVERIFY2(window.connectionText().contains(QStringLiteral("unreachable")),
             qPrintable(window.connectionText()));
    // Whichever call failed last, the window says what happened and where it looked.
    QVERIFY2(window.lastMessage().contains(
                 QStringLiteral("(is benchd serve running on %1?)").arg(daemon->url().toString())),
             qPrintable(window.lastMessage()));
    daemon = std::make_unique<DaemonProcess>(state_.path(), port);
    QVERIFY(daemon->port() == port);
    QTRY_VERIFY_WITH_TIMEOUT(window.reachable(), 15'000);
    QTRY_VERIFY_WITH_TIMEOUT(window.lastMessage().contains(QStringLiteral("The daemon is back")),
                             10'000);
  }

  void uploadsAreCheckedAndAWrongFileIsExplained() {
    DaemonProcess daemon(state_.path(), 0);
    QVERIFY(daemon.port() != 0);
    MainWindow window({daemon.url(), daemon.token()});
    window.show();
    auto* files = child<QComboBox>(window, "scenarioFileCombo");
    QTRY_VERIFY_WITH_TIMEOUT(files->count() > 0, 30'000);
    auto* panel = window.findChild<benchd::gui::RunPanel*>();
    QVERIFY(panel != nullptr);
    const QString header = QString::fromUtf8(benchd::testing::kScenarioCsvHeader);
    const QString bad = state_.filePath(QStringLiteral("mine-bad.csv"));
    QFile bad_file(bad);
    QVERIFY(bad_file.open(QIODevice::WriteOnly));
    bad_file.write((header + "mine,get-time.js,,0,0,abc,100,0,5\n").toUtf8());
    bad_file.close();
    panel->uploadFile(bad);
    QTRY_VERIFY_WITH_TIMEOUT(window.lastMessage().contains(QStringLiteral("was not uploaded")),
                             10'000);
    QVERIFY2(window.lastMessage().contains(QStringLiteral("mine-bad.csv:2: column 6")),
             qPrintable(window.lastMessage()));
    QCOMPARE(files->findText(QStringLiteral("mine-bad.csv")), -1);

    const QString good = state_.filePath(QStringLiteral("mine.csv"));
    QFile good_file(good);
    QVERIFY(good_file.open(QIODevice::WriteOnly));
    good_file.write((header + "mine-row,get-time.js,,0,0,10,100,0,5\n").toUtf8());
    good_file.close();
    panel->uploadFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(files->currentText(), QStringLiteral("mine.csv"), 10'000);
    auto* rows = child<QTableWidget>(window, "scenarioRows");
    QTRY_COMPARE_WITH_TIMEOUT(rows->rowCount(), 1, 10'000);
    QCOMPARE(rows->item(0, 0)->text(), QStringLiteral("mine-row"));
  }

  void aWrongTokenIsShownInTheWindow() {
    DaemonProcess daemon(state_.path(), 0);
    QVERIFY(daemon.port() != 0);
    MainWindow window({daemon.url(), QStringLiteral("not-the-token")});
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.lastMessage().contains(QStringLiteral("HTTP 401")), 15'000);
  }

 private:
  QTemporaryDir state_;
};

QTEST_MAIN(GuiAppTest)
#include "gui_app_test.moc"
