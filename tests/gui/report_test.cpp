// benchd-report as users meet it: `benchd run` renders the charts after the run and results.md
// embeds them; the PNGs have the chart's size and every panel drew its data (the plot areas of
// the same chart laid out at the same size hold ink). benchd-report's own errors are clear.
// And benchd-report as the reader of a store it did not write: a file made with plain SQL as
// docs/store-schema.md describes it, which it must render, or refuse when its version is newer.

#include "build_paths.hpp"
#include "pixels.hpp"
#include "scenario_csv.hpp"
#include "store_schema_doc.hpp"

#include <benchd/charts/scenario_chart.hpp>
#include <benchd/charts/widget_image.hpp>

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <array>
#include <cstdint>
#include <sqlite3.h>
#include <string>

using namespace benchd::gui::testing;

namespace {

struct Finished {
  int exit_code = -1;
  QString output;  // stdout and stderr
};

Finished runProgram(const QString& program, const QStringList& arguments, int timeout_ms) {
  QProcess process;
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(program, arguments);
  Finished finished;
  if (!process.waitForFinished(timeout_ms)) {
    process.kill();
    process.waitForFinished();
    finished.output = QStringLiteral("timed out: ") + QString::fromUtf8(process.readAll());
    return finished;
  }
  finished.exit_code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  finished.output = QString::fromUtf8(process.readAll());
  return finished;
}

/// The panels of a rendered (scenario, approach) chart whose plot area holds no ink, named
/// with their ink count; empty when every panel drew its data. The same chart laid out empty
/// at the renderer's size tells where the plot areas are (and must have none).
QStringList panelsWithoutData(const QImage& image) {
  benchd::charts::ScenarioChart layout(benchd::charts::ScenarioChart::Arrangement::kStacked);
  layout.setTitle(QStringLiteral("layout"));
  const QImage blank = benchd::charts::renderWidget(layout, QSize(1800, 1500));
  QStringList empty;
  for (int panel = 0; panel < benchd::charts::ScenarioChart::kPanelCount; ++panel) {
    const QRect area = layout.plotArea(panel).adjusted(4, 4, -4, -4);
    const int ink = inkPixels(image, area);
    if (inkPixels(blank, area) != 0 || ink <= 100) {
      empty << QStringLiteral("panel %1: %2 ink pixels").arg(panel).arg(ink);
    }
  }
  return empty;
}

/// Runs `sql` on `db`; false, with a warning naming the error, when it fails.
bool execute(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    qWarning("SQL failed: %s", error != nullptr ? error : "?");
    sqlite3_free(error);
    return false;
  }
  return true;
}

/// The summary metric names of docs/store-schema.md (`result_metric`).
constexpr std::array<const char*, 28> kMetricNames = {
    "requests_ok",
    "requests_error",
    "requests_per_second_p50",
    "requests_per_second_p90",
    "requests_per_second_max",
    "latency_millis_min",
    "latency_millis_p50",
    "latency_millis_p90",
    "latency_millis_p99",
    "latency_millis_max",
    "cpu_use_percent_avg",
    "cpu_use_percent_max",
    "ram_use_percent_avg",
    "ram_use_percent_max",
    "heap_mib_avg",
    "heap_mib_max",
    "rss_mib_avg",
    "rss_mib_max",
    "context_switches_per_request",
    "cpu_millis_per_request",
    "os_threads_avg",
    "os_threads_max",
    "sockets_avg",
    "sockets_max",
    "network_kib_per_req_avg",
    "network_kib_per_req_max",
    "network_packets_per_req_avg",
    "network_packets_per_req_max",
};

/// One latency histogram bucket as docs/store-schema.md encodes `latency_buckets`: the words
/// lowest_micros, highest_micros and count, unsigned 64-bit little-endian, as an SQL literal.
std::string bucketLiteral(std::uint64_t lowest, std::uint64_t highest, std::uint64_t count) {
  std::string hex;
  for (const std::uint64_t word : {lowest, highest, count}) {
    for (int byte = 0; byte < 8; ++byte) {
      hex += QStringLiteral("%1")
                 .arg((word >> (8 * byte)) & 0xFFU, 2, 16, QLatin1Char('0'))
                 .toStdString();
    }
  }
  return "X'" + hex + "'";
}

/// One interval of `phase` of `result`: its load_second and system_second rows, with values
/// that grow with `idx` so that every chart line slopes through its plot area. No request
/// fails: error markers make the latency panel taller than an empty chart's, which would move
/// the plot areas panelsWithoutData looks at.
std::string secondRows(int result, const char* phase, int idx) {
  const std::string r = std::to_string(result);
  const std::string i = std::to_string(idx);
  const std::string f = std::to_string(idx + 1);  // a factor of 1, 2, 3, ...
  const std::string end = std::to_string(1'764'450'001'000LL + idx * 1000LL);
  return "INSERT INTO load_second (result_id, phase, idx, start_micros, duration_micros, "
         "end_epoch_millis, requests_sent, requests_ok, requests_requested, "
         "errors_connection_refused, errors_connect_timeout, errors_connection_reset, "
         "errors_request_timeout, errors_http_4xx, errors_http_5xx, errors_other, bytes_sent, "
         "bytes_received, connects, dropped_arrivals, late_arrivals, interrupted_requests, "
         "achieved_requests_per_second, intended_requests_per_second, active_vus, "
         "generator_cpu_percent, latency_count, latency_min, latency_p50, latency_p90, "
         "latency_p99, latency_max, uncorrected_count, uncorrected_min, uncorrected_p50, "
         "uncorrected_p90, uncorrected_p99, uncorrected_max, latency_buckets) VALUES (" +
         r + ", '" + phase + "', " + i + ", " + i + " * 1000000, 1000000, " + end + ", " + f +
         " * 95, " + f + " * 95, " + f + " * 95, 0, 0, 0, 0, 0, 0, 0, " + f + " * 20000, " + f +
         " * 40000, 20, 0, 0, 0, " + f + " * 100.0, 100.0, 20, " + f + " * 10.0, " + f +
         " * 95, 20.0, 20.0 + " + f + ", 25.0 + " + f + ", 30.0 + " + f + ", 40.0 + " + f +
         " * 10, 0, 0, 0, 0, 0, 0, " +
         bucketLiteral(20'000, 20'015, static_cast<std::uint64_t>(idx + 1) * 95) +
         ");\n"
         "INSERT INTO system_second (result_id, phase, idx, epoch_millis, host_interval_seconds, "
         "host_cpu_user_percent, host_cpu_system_percent, host_cpu_iowait_percent, "
         "host_ram_used_percent, host_tcp_sockets_in_use, host_loopback_rx_bytes, "
         "host_loopback_tx_bytes, host_loopback_rx_packets, host_loopback_tx_packets, "
         "host_tcp_active_opens, host_tcp_passive_opens, worker_present, worker_cpu_percent, "
         "worker_cpu_micros, worker_rss_bytes, worker_threads, worker_voluntary_context_switches, "
         "worker_involuntary_context_switches, worker_open_fds, generator_present, "
         "generator_cpu_percent, generator_cpu_micros, generator_rss_bytes, generator_threads, "
         "generator_voluntary_context_switches, generator_involuntary_context_switches, "
         "generator_open_fds, worker_stats_epoch_millis, worker_heap_bytes, worker_counters) "
         "VALUES (" +
         r + ", '" + phase + "', " + i + ", " + end + ", 1.0, " + f + " * 10.0, " + f + " * 5.0, " +
         f + " * 1.0, " + f + " * 15.0, " + f + " * 50, " + f + " * 1000000, " + f +
         " * 1000000, " + f + " * 1000, " + f + " * 1000, " + f + " * 20, " + f + " * 20, 1, " + f +
         " * 20.0, " + f + " * 200000, " + f + " * 30000000, " + f + " * 3, " + f + " * 100, " + f +
         " * 10, " + f + " * 30, 1, " + f + " * 30.0, " + f +
         " * 300000, 50000000, 4, 50, 5, 12, " + end + ", " + f + " * 10000000, 'requests=" + f +
         "\n');\n";
}

/// A results store made as docs/store-schema.md describes it, with plain SQL and no
/// ResultStore: its schema SQL, then one completed run of two approaches over one scenario row
/// with their summaries, three test seconds each and one warm-up second (which no chart shows).
bool writeDocumentedStore(const QString& file, const QString& results_dir) {
  sqlite3* db = nullptr;
  if (sqlite3_open(file.toStdString().c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  std::string sql = benchd::testing::documentedStoreSchemaSql();
  sql +=
      "BEGIN;\n"
      "INSERT INTO run (id, scenario_file, scenario_set, approaches, options, results_dir, "
      "started_epoch_millis, finished_epoch_millis, status, error) VALUES (1, "
      "'/elsewhere/contract.csv', 'contract', 'callbacks-asio,threads-poco', 'written by hand', "
      "'" +
      results_dir.toStdString() +
      "', 1764450000000, 1764450010000, 'completed', '');\n"
      "UPDATE run_id_high_water SET id = 1;\n"
      "INSERT INTO run_spec (run_id, position, label, value) VALUES (1, 0, 'OS', 'any');\n"
      "INSERT INTO scenario_row (run_id, row_index, name, workload, server_profiles, "
      "delay_call_depth, delay_millis, connections, requests_per_second, warmup_seconds, "
      "test_seconds, source_line) VALUES (1, 0, 'contract-row', 'get-movies', '', 0, 20, 20, "
      "NULL, 1, 3, 2);\n"
      "INSERT INTO result (id, run_id, row_index, scenario, approach, finished, failed, "
      "failure_reason) VALUES (1, 1, 0, 'contract-row', 'callbacks-asio', 1, 0, ''), "
      "(2, 1, 0, 'contract-row', 'threads-poco', 1, 0, '');\n"
      "INSERT INTO result_diagnostic (result_id, name, value) VALUES (1, 'open_model', '0'), "
      "(2, 'open_model', '0');\n";
  for (std::size_t index = 0; index < kMetricNames.size(); ++index) {
    // Different for the two approaches, so that one of them leads every contest of the grid.
    const std::string value = std::to_string(index + 1);
    sql += "INSERT INTO result_metric (result_id, name, value) VALUES (1, '" +
           std::string(kMetricNames[index]) + "', " + value + " * 10.0), (2, '" +
           kMetricNames[index] + "', " + value + " * 20.0);\n";
  }
  for (const int result : {1, 2}) {
    sql += secondRows(result, "warmup", 0);
    for (int idx = 0; idx < 3; ++idx) {
      sql += secondRows(result, "test", idx);
    }
  }
  sql += "COMMIT;\n";
  const bool written = execute(db, sql);
  sqlite3_close(db);
  return written;
}

/// PRAGMA user_version of `file`, or -1.
int userVersion(const QString& file) {
  sqlite3* db = nullptr;
  int version = -1;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_open_v2(file.toStdString().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
          SQLITE_OK &&
      sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nullptr) == SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    version = sqlite3_column_int(statement, 0);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return version;
}

}  // namespace

class ReportTest : public QObject {
  Q_OBJECT

 private slots:
  void benchdRunRendersTheChartsThatResultsMdEmbeds() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile scenario(dir.filePath(QStringLiteral("tiny.csv")));
    QVERIFY(scenario.open(QIODevice::WriteOnly));
    scenario.write(benchd::testing::kScenarioCsvHeader);
    scenario.write("tiny-get-movies,get-movies.js,,0,20,20,200,0,3\n");
    scenario.close();
    const Finished run = runProgram(QString::fromStdString(benchd::testing::cliPath()),
                                    {QStringLiteral("run"), QStringLiteral("--repeat"),
                                     QStringLiteral("1"), scenario.fileName(), QStringLiteral("-a"),
                                     QStringLiteral("callbacks-asio,coroutines-asio"),
                                     QStringLiteral("-o"), dir.filePath(QStringLiteral("out"))},
                                    180'000);
    QVERIFY2(run.exit_code == 0, qPrintable(run.output));
    QVERIFY2(run.output.contains(QStringLiteral("2 charts and the winners grid")),
             qPrintable(run.output));

    const QString folder = dir.filePath(QStringLiteral("out/tiny"));
    QFile markdown(folder + QStringLiteral("/results.md"));
    QVERIFY(markdown.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(markdown.readAll());
    QVERIFY2(text.contains(QStringLiteral("![Overall](./results.png)")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("(./tiny-get-movies/callbacks-asio.png)")));
    QVERIFY(text.contains(QStringLiteral("(./tiny-get-movies/coroutines-asio.png)")));
    QVERIFY(!text.contains(QStringLiteral("No image available")));

    for (const QString& approach :
         {QStringLiteral("callbacks-asio"), QStringLiteral("coroutines-asio")}) {
      const QImage image(folder + QStringLiteral("/tiny-get-movies/%1.png").arg(approach));
      QCOMPARE(image.size(), QSize(1800, 1500));
      const QStringList empty = panelsWithoutData(image);
      QVERIFY2(empty.isEmpty(), qPrintable(approach + QStringLiteral(": ") + empty.join(", ")));
    }
    const QImage grid(folder + QStringLiteral("/results.png"));
    QVERIFY2(grid.width() > 400 && grid.height() > 800,
             qPrintable(QStringLiteral("%1x%2").arg(grid.width()).arg(grid.height())));
    // Cells filled with either approach's colour (goldenrod, maroon) where one leads.
    QVERIFY(countPixels(grid, grid.rect(), [](QColor c) {
              return c == QColor(0xda, 0xa5, 0x20) || c == QColor(0x80, 0x00, 0x00);
            }) > 500);
    const Finished no_run = runProgram(
        QString::fromStdString(benchd::testing::reportPath()),
        {QStringLiteral("--store"), dir.filePath(QStringLiteral("out/benchd.sqlite")),
         QStringLiteral("--run"), QStringLiteral("99"), QStringLiteral("--out"), dir.path()},
        30'000);
    QCOMPARE(no_run.exit_code, 1);
    QVERIFY2(no_run.output.contains(QStringLiteral("no run 99 in")), qPrintable(no_run.output));
  }

  void rendersAStoreWrittenAsTheSchemaDocumentDescribesIt() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath(QStringLiteral("documented.sqlite"));
    const QString out = dir.filePath(QStringLiteral("charts"));
    QVERIFY(writeDocumentedStore(store, out));
    const Finished report = runProgram(QString::fromStdString(benchd::testing::reportPath()),
                                       {QStringLiteral("--store"), store, QStringLiteral("--run"),
                                        QStringLiteral("1"), QStringLiteral("--out"), out},
                                       60'000);
    QVERIFY2(report.exit_code == 0, qPrintable(report.output));
    QVERIFY2(report.output.contains(QStringLiteral("2 charts and the winners grid")),
             qPrintable(report.output));
    for (const QString& approach :
         {QStringLiteral("callbacks-asio"), QStringLiteral("threads-poco")}) {
      const QImage image(out + QStringLiteral("/contract-row/%1.png").arg(approach));
      QCOMPARE(image.size(), QSize(1800, 1500));
      const QStringList empty = panelsWithoutData(image);
      QVERIFY2(empty.isEmpty(), qPrintable(approach + QStringLiteral(": ") + empty.join(", ")));
    }
    const QImage grid(out + QStringLiteral("/results.png"));
    QVERIFY2(!grid.isNull() && grid.width() > 400,
             qPrintable(QStringLiteral("%1x%2").arg(grid.width()).arg(grid.height())));
    QVERIFY(countPixels(grid, grid.rect(), [](QColor c) {
              return c == QColor(0xda, 0xa5, 0x20) || c == QColor(0x80, 0x00, 0x00);
            }) > 500);
  }

  void refusesAStoreOfANewerSchemaAndLeavesItAlone() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString store = dir.filePath(QStringLiteral("newer.sqlite"));
    QVERIFY(writeDocumentedStore(store, dir.filePath(QStringLiteral("charts"))));
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(store.toStdString().c_str(), &db), SQLITE_OK);
    const int newer = userVersion(store) + 1;
    QVERIFY(execute(db, "PRAGMA user_version = " + std::to_string(newer)));
    sqlite3_close(db);
    const Finished report =
        runProgram(QString::fromStdString(benchd::testing::reportPath()),
                   {QStringLiteral("--store"), store, QStringLiteral("--run"), QStringLiteral("1"),
                    QStringLiteral("--out"), dir.filePath(QStringLiteral("charts"))},
                   30'000);
    QCOMPARE(report.exit_code, 1);
    QVERIFY2(report.output.contains(
                 QStringLiteral("results store of schema version %1, newer than").arg(newer)),
             qPrintable(report.output));
    QCOMPARE(userVersion(store), newer);
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("charts/results.png"))));
  }

  void badArgumentsAndMissingRunsAreNamed() {
    QTemporaryDir dir;
    const QString report = QString::fromStdString(benchd::testing::reportPath());
    Finished usage = runProgram(report, {QStringLiteral("--run"), QStringLiteral("x")}, 30'000);
    QCOMPARE(usage.exit_code, 2);
    QVERIFY2(usage.output.contains(QStringLiteral("--run: expected an integer from 1 to")),
             qPrintable(usage.output));
    const Finished missing_store = runProgram(
        report,
        {QStringLiteral("--store"), dir.filePath(QStringLiteral("none.sqlite")),
         QStringLiteral("--run"), QStringLiteral("1"), QStringLiteral("--out"), dir.path()},
        30'000);
    QCOMPARE(missing_store.exit_code, 1);
    QVERIFY2(missing_store.output.contains(QStringLiteral("no store file")),
             qPrintable(missing_store.output));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("none.sqlite"))));
  }
};

QTEST_MAIN(ReportTest)
#include "report_test.moc"
