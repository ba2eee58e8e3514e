// The chart library drawn offscreen: every panel of the scenario chart draws its data inside
// its plot area (and nothing when there is none), errors show in red on the latency panel, the
// winners grid fills cells with the winner's colour at the cell's alpha, writes errors in red
// and walks its cells with the keyboard; the capacity chart draws each approach's trials by
// outcome in its colour.

#include "pixels.hpp"

#include <benchd/charts/capacity_chart.hpp>
#include <benchd/charts/scenario_chart.hpp>
#include <benchd/charts/widget_image.hpp>
#include <benchd/charts/winners_grid_view.hpp>
#include <benchd/results/presented_second.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/winners.hpp>

#include <QChart>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <cmath>

using benchd::charts::ScenarioChart;
using benchd::results::PresentedSecond;
using namespace benchd::gui::testing;

namespace {

std::vector<PresentedSecond> someSeconds(int count, bool with_errors) {
  std::vector<PresentedSecond> seconds;
  for (int index = 1; index <= count; ++index) {
    PresentedSecond second;
    second.seconds = index;
    second.latency_p50_millis = 10.0 + index;
    second.latency_p90_millis = 20.0 + index;
    second.latency_p99_millis = 40.0 + 2 * index;
    second.latency_max_millis = 80.0 + 3 * index;
    second.ok_per_second = 1000.0 + 10.0 * index;
    second.failed = with_errors && index % 5 == 0 ? 7 : 0;
    second.failed_per_second = static_cast<double>(second.failed);
    second.host_cpu_user_percent = 20.0 + index % 7;
    second.host_cpu_system_percent = 10.0;
    second.worker_cpu_percent = 80.0;
    second.worker_heap_mib = 5.0 + index * 0.1;
    second.worker_rss_mib = 20.0;
    second.host_ram_used_percent = 30.0;
    second.worker_threads = 4.0;
    second.worker_open_fds = 64.0;
    second.host_tcp_sockets = 130.0;
    second.tcp_active_opens_per_second = index % 3;
    second.tcp_passive_opens_per_second = index % 3;
    second.loopback_rx_mbps = 50.0 + index;
    second.loopback_tx_mbps = 40.0 + index;
    seconds.push_back(second);
  }
  return seconds;
}

/// Two approaches in two scenarios: "alpha" wins everything in s1 by a wide margin; in s2
/// "beta" had errors, so "alpha" wins there too whatever the values.
benchd::results::WinnersGrid sampleGrid() {
  benchd::results::ResultsTable table({"requests_ok", "requests_error", "latency_millis_p99"});
  table.addRow({"s1", "alpha", {"1000", "0", "10"}, 0});
  table.addRow({"s1", "beta", {"100", "0", "50"}, 0});
  table.addRow({"s2", "alpha", {"900", "0", "12"}, 0});
  table.addRow({"s2", "beta", {"950", "3", "11"}, 0});
  return benchd::results::computeWinners(table, {"alpha", "beta"});
}

}  // namespace

class ChartRenderTest : public QObject {
  Q_OBJECT

 private slots:
  void everyPanelDrawsItsDataInsideItsPlotArea() {
    ScenarioChart chart(ScenarioChart::Arrangement::kStacked);
    chart.setTitle(QStringLiteral("callbacks-asio: get-movies"));
    const QImage empty = benchd::charts::renderWidget(chart, QSize(1800, 1500));
    std::vector<QRect> empty_areas;
    for (int panel = 0; panel < ScenarioChart::kPanelCount; ++panel) {
      empty_areas.push_back(chart.plotArea(panel).adjusted(4, 4, -4, -4));
    }
    chart.setSeconds(someSeconds(30, false));
    QCOMPARE(chart.pointCount(), std::size_t{30});
    const QImage drawn = benchd::charts::renderWidget(chart, QSize(1800, 1500));
    QCOMPARE(drawn.size(), QSize(1800, 1500));
    for (int panel = 0; panel < ScenarioChart::kPanelCount; ++panel) {
      // Inset by a few pixels: the axes' own lines run along the plot area's edges.
      const QRect area = chart.plotArea(panel).adjusted(4, 4, -4, -4);
      QVERIFY2(area.width() > 500 && area.height() > 100,
               qPrintable(QStringLiteral("panel %1 plot area %2x%3")
                              .arg(panel)
                              .arg(area.width())
                              .arg(area.height())));
      QVERIFY2(inkPixels(drawn, area) > 200,
               qPrintable(QStringLiteral("panel %1 drew %2 ink pixels")
                              .arg(panel)
                              .arg(inkPixels(drawn, area))));
      QCOMPARE(inkPixels(empty, empty_areas[static_cast<std::size_t>(panel)]), 0);
    }
  }

  void theLatencyPanelMarksSecondsWithErrorsInRed() {
    ScenarioChart chart(ScenarioChart::Arrangement::kStacked);
    chart.setSeconds(someSeconds(30, false));
    const QImage clean = benchd::charts::renderWidget(chart, QSize(1800, 1500));
    const QRect latency = chart.plotArea(0).adjusted(2, 2, -2, -2);
    QCOMPARE(countPixels(clean, latency, isRed), 0);
    chart.setSeconds(someSeconds(30, true));
    const QImage with_errors = benchd::charts::renderWidget(chart, QSize(1800, 1500));
    QVERIFY(countPixels(with_errors, latency, isRed) > 20);
  }

  void theDatabaseLinesShowOnlyWhereTheDatabaseWasSampled() {
    ScenarioChart chart(ScenarioChart::Arrangement::kStacked);
    constexpr int kCpuPanel = 2;
    constexpr int kMemoryPanel = 3;
    const auto hasEntry = [&chart](int panel, const QString& prefix) {
      const QStringList entries = chart.legendEntries(panel);
      return std::any_of(entries.begin(), entries.end(),
                         [&prefix](const QString& entry) { return entry.startsWith(prefix); });
    };
    chart.setSeconds(someSeconds(10, false));
    QVERIFY(hasEntry(kCpuPanel, QStringLiteral("Worker: ")));
    QVERIFY(!hasEntry(kCpuPanel, QStringLiteral("PostgreSQL")));
    QVERIFY(!hasEntry(kMemoryPanel, QStringLiteral("PostgreSQL")));

    // A postgres row: the cluster sampled from the third second on (the first row's start).
    std::vector<PresentedSecond> seconds = someSeconds(11, false);
    for (std::size_t index = 2; index < seconds.size(); ++index) {
      seconds[index].database_present = true;
      seconds[index].database_cpu_percent = 30.0 + static_cast<double>(index);
      seconds[index].database_mib = 48.0;
    }
    chart.setSeconds(seconds);
    // Nine seconds, 32..40 %: the median is 36, the seconds before the cluster not counted.
    QVERIFY2(chart.legendEntries(kCpuPanel).contains(QStringLiteral("PostgreSQL: 32 / 36 / 40 %")),
             qPrintable(chart.legendEntries(kCpuPanel).join(QStringLiteral(" | "))));
    QVERIFY2(
        chart.legendEntries(kMemoryPanel).contains(QStringLiteral("PostgreSQL: 48 / 48 / 48 MiB")),
        qPrintable(chart.legendEntries(kMemoryPanel).join(QStringLiteral(" | "))));
    chart.clear();
    QVERIFY(!hasEntry(kCpuPanel, QStringLiteral("PostgreSQL")));
  }

  void appendingAddsOnePointPerSecond() {
    ScenarioChart chart(ScenarioChart::Arrangement::kGrid);
    for (const PresentedSecond& second : someSeconds(12, false)) {
      chart.append(second);
    }
    QCOMPARE(chart.pointCount(), std::size_t{12});
    chart.clear();
    QCOMPARE(chart.pointCount(), std::size_t{0});
  }

  /// A result that did not complete is named under its approach in the legend, in red (the
  /// source study's "OOM - Did not complete"); a grid whose results all completed has no red
  /// there.
  void winnersGridNamesWhatDidNotCompleteUnderItsApproach() {
    benchd::results::WinnersGrid grid = sampleGrid();
    const QFont font = QApplication::font();
    const benchd::charts::WinnersGridGeometry clean_geometry(grid, font);
    const QImage clean = benchd::charts::renderWinnersGrid(grid, font);
    QCOMPARE(countPixels(clean, clean_geometry.legendRect(), isRed), 0);

    benchd::results::IncompleteResult oom;
    oom.scenario = "s2";
    oom.approach = "beta";
    oom.failed_runs = 1;
    oom.runs = 1;
    oom.out_of_memory = true;
    grid.incomplete.push_back(oom);
    const benchd::charts::WinnersGridGeometry geometry(grid, font);
    const QImage marked = benchd::charts::renderWinnersGrid(grid, font);
    QVERIFY(countPixels(marked, geometry.legendRect(), isRed) > 20);
  }

  void winnersGridFillsCellsWithTheWinnersColourAtItsAlpha() {
    const benchd::results::WinnersGrid grid = sampleGrid();
    const QFont font = QApplication::font();
    const QImage image = benchd::charts::renderWinnersGrid(grid, font);
    const benchd::charts::WinnersGridGeometry geometry(grid, font);
    QCOMPARE(image.size(), geometry.size());
    for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
      for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
        const benchd::results::WinnersCell& cell = grid.cell(metric, scenario);
        const QRect rect = geometry.cellRect(metric, scenario);
        // A pixel inside the cell, left of the centred text.
        const QColor pixel = image.pixelColor(rect.left() + 3, rect.bottom() - 3);
        const QColor colour(QString::fromLatin1(benchd::results::colourHex(cell.colour).data()));
        const auto expected = [&](int channel) {
          return static_cast<int>(std::lround(255.0 * (1.0 - cell.alpha) + channel * cell.alpha));
        };
        const QString where = QStringLiteral("%1 × %2 (alpha %3, colour %4): got %5")
                                  .arg(QString::fromStdString(grid.metrics[metric]),
                                       QString::fromStdString(grid.scenarios[scenario]))
                                  .arg(cell.alpha)
                                  .arg(QString::fromStdString(cell.colour), pixel.name());
        QVERIFY2(std::abs(pixel.red() - expected(colour.red())) <= 1 &&
                     std::abs(pixel.green() - expected(colour.green())) <= 1 &&
                     std::abs(pixel.blue() - expected(colour.blue())) <= 1,
                 qPrintable(where));
      }
    }
    // requests_ok in s1: alpha leads by 900 % → full saturation, alpha's colour (goldenrod).
    const QColor full =
        image.pixelColor(geometry.cellRect(0, 0).left() + 3, geometry.cellRect(0, 0).bottom() - 3);
    QCOMPARE(full, QColor(0xda, 0xa5, 0x20));
    // s2: beta had errors; its entries (the runner-up line) are written in red.
    const QRect errors_cell = geometry.cellRect(0, 1);
    const QRect lower_half(errors_cell.left(), errors_cell.center().y(), errors_cell.width(),
                           errors_cell.height() / 2);
    QVERIFY(countPixels(image, lower_half, isRed) > 5);
    const QRect upper_half(errors_cell.left(), errors_cell.top(), errors_cell.width(),
                           errors_cell.height() / 2 - 2);
    QCOMPARE(countPixels(image, upper_half, isRed), 0);
    // The legend shows each approach's swatch.
    QVERIFY(countPixels(image, geometry.legendRect(),
                        [](QColor c) { return c == QColor(0xda, 0xa5, 0x20); }) > 50);
  }

  void arrowKeysWalkTheCellsAndAnnounceTheRanking() {
    benchd::charts::WinnersGridView view;
    view.setGrid(sampleGrid());
    QSignalSpy selected(&view, &benchd::charts::WinnersGridView::cellSelected);
    QTest::keyClick(&view, Qt::Key_Down);  // first press selects the first cell
    QTest::keyClick(&view, Qt::Key_Right);
    QTest::keyClick(&view, Qt::Key_Down);
    QCOMPARE(selected.count(), 3);
    const QString last = selected.last().first().toString();
    QVERIFY2(last.startsWith(QStringLiteral("requests_error in s2: ")), qPrintable(last));
    QVERIFY2(last.contains(QStringLiteral("beta 3 (rank 2) with errors")), qPrintable(last));
    QTest::keyClick(&view, Qt::Key_Right);  // already at the last scenario: stays
    QVERIFY(selected.last().first().toString().contains(QStringLiteral(" in s2: ")));
  }

  void theCapacityChartDrawsEachApproachsTrialsByOutcomeInItsColour() {
    benchd::charts::CapacityChart chart;
    chart.setGoal(QStringLiteral("p99<=50ms"), 50.0);
    using Trial = benchd::charts::CapacityChart::Trial;
    const QString alpha = QStringLiteral("alpha");
    const QString beta = QStringLiteral("beta");
    chart.addTrial(Trial{alpha, 1000.0, 2.0, QStringLiteral("pass")});
    chart.addTrial(Trial{alpha, 2000.0, 3.5, QStringLiteral("pass")});
    chart.addTrial(Trial{alpha, 4000.0, 180.0, QStringLiteral("fail")});
    chart.addTrial(Trial{beta, 1000.0, 4.0, QStringLiteral("pass")});
    chart.addTrial(Trial{beta, 2000.0, 60.0, QStringLiteral("generator-saturated")});
    QCOMPARE(chart.approaches(), (QStringList{alpha, beta}));
    QCOMPARE(chart.pointCount(alpha, QStringLiteral("pass")), std::size_t{2});
    QCOMPARE(chart.pointCount(alpha, QStringLiteral("fail")), std::size_t{1});
    QCOMPARE(chart.pointCount(beta, QStringLiteral("pass")), std::size_t{1});
    QCOMPARE(chart.pointCount(beta, QStringLiteral("fail")), std::size_t{0});
    QCOMPARE(chart.pointCount(beta, QStringLiteral("generator-saturated")), std::size_t{1});
    // The goal in full: "<=" would start a tag in the chart's rich-text title.
    QVERIFY2(chart.chart()->title().contains(QStringLiteral("p99 \u2264 50ms")),
             qPrintable(chart.chart()->title()));
    // The first approach's colour is on the rendered chart (its filled points).
    const QColor first(QString::fromStdString(std::string(
        benchd::results::colourHex(benchd::results::approachColours({"alpha", "beta"}).front()))));
    const QImage image = benchd::charts::renderWidget(chart, QSize(800, 500));
    const int coloured = countPixels(image, image.rect(), [&first](QColor colour) {
      return std::abs(colour.red() - first.red()) < 12 &&
             std::abs(colour.green() - first.green()) < 12 &&
             std::abs(colour.blue() - first.blue()) < 12;
    });
    QVERIFY2(coloured > 20, qPrintable(QString::number(coloured)));
    chart.clear();
    QVERIFY(chart.trials().empty());
    QCOMPARE(chart.pointCount(alpha, QStringLiteral("pass")), std::size_t{0});
  }

  void aSmallerWidgetDrawsTheWholeGridScaledAndClicksFindTheirCell() {
    benchd::charts::WinnersGridView view;
    view.setGrid(sampleGrid());
    const QSize natural = view.sizeHint();
    view.resize(natural);
    QCOMPARE(view.scale(), 1.0);
    view.resize(natural / 2);
    QVERIFY(view.scale() <= 0.5 + 1e-9);
    QVERIFY(view.scale() > 0.45);
    // The last cell lies inside the smaller widget, and a click on it selects it.
    const QRect last = view.cellRect(1, 1);
    QVERIFY(view.rect().contains(last));
    QSignalSpy selected(&view, &benchd::charts::WinnersGridView::cellSelected);
    QTest::mouseClick(&view, Qt::LeftButton, {}, last.center());
    QCOMPARE(selected.count(), 1);
    QVERIFY2(selected.last().first().toString().contains(QStringLiteral(" in s2: ")),
             qPrintable(selected.last().first().toString()));
  }
};

QTEST_MAIN(ChartRenderTest)
#include "chart_render_test.moc"
