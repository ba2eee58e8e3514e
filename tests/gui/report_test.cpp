// benchd-report as users meet it: `benchd run` renders the charts after the run and results.md
// embeds them; the PNGs have the chart's size and every panel drew its data (the plot areas of
// the same chart laid out at the same size hold ink). benchd-report's own errors are clear.

#include "build_paths.hpp"
#include "pixels.hpp"

#include <benchd/charts/scenario_chart.hpp>
#include <benchd/charts/widget_image.hpp>

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

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

}  // namespace

class ReportTest : public QObject {
  Q_OBJECT

 private slots:
  void benchdRunRendersTheChartsThatResultsMdEmbeds() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile scenario(dir.filePath(QStringLiteral("tiny.csv")));
    QVERIFY(scenario.open(QIODevice::WriteOnly));
    scenario.write(
        "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
        "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n"
        "tiny-get-movies,get-movies.js,,0,20,20,200,0,3\n");
    scenario.close();
    const Finished run =
        runProgram(QString::fromStdString(benchd::testing::cliPath()),
                   {QStringLiteral("run"), scenario.fileName(), QStringLiteral("-a"),
                    QStringLiteral("callbacks-asio,coroutines-asio"), QStringLiteral("-o"),
                    dir.filePath(QStringLiteral("out"))},
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

    // The same chart laid out at the renderer's size tells where its plot areas are.
    benchd::charts::ScenarioChart layout(benchd::charts::ScenarioChart::Arrangement::kStacked);
    layout.setTitle(QStringLiteral("callbacks-asio: tiny-get-movies"));
    const QImage blank = benchd::charts::renderWidget(layout, QSize(1800, 1500));
    for (const QString& approach :
         {QStringLiteral("callbacks-asio"), QStringLiteral("coroutines-asio")}) {
      const QImage image(folder + QStringLiteral("/tiny-get-movies/%1.png").arg(approach));
      QCOMPARE(image.size(), QSize(1800, 1500));
      for (int panel = 0; panel < benchd::charts::ScenarioChart::kPanelCount; ++panel) {
        const QRect area = layout.plotArea(panel).adjusted(4, 4, -4, -4);
        QCOMPARE(inkPixels(blank, area), 0);
        QVERIFY2(inkPixels(image, area) > 100,
                 qPrintable(QStringLiteral("%1 panel %2: %3 ink pixels")
                                .arg(approach)
                                .arg(panel)
                                .arg(inkPixels(image, area))));
      }
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
