#include "chart_panel.hpp"

#include <benchd/charts/scenario_chart.hpp>

#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace benchd::charts {
namespace {

// The original's colours (docs/gui.md#the-six-panels): black for the headline line (width 2),
// then green, blue, red, orange for the others.
const QColor kBlack(Qt::black);
const QColor kGreen(0x00, 0x80, 0x00);
const QColor kBlue(0x1f, 0x5f, 0xd0);
const QColor kRed(0xd0, 0x20, 0x20);
const QColor kOrange(0xff, 0x8c, 0x00);
const QColor kGrey(0x80, 0x80, 0x80);
const QColor kPurple(0x80, 0x30, 0xa0);

/// The seconds of a `postgres` row on a private cluster: the database's lines are drawn.
bool hasDatabase(const results::PresentedSecond& second) {
  return second.database_present;
}

std::vector<PanelSpec> panelSpecs() {
  std::vector<PanelSpec> specs;
  specs.push_back(
      {.title = QStringLiteral("Latency"),
       .unit = QStringLiteral("ms"),
       .headline_line = 2,
       .left_label = QStringLiteral("ms"),
       .right_label = QString(),
       .right_unit = QString(),
       .scale = PanelScale::kLog,
       .lines = {{QStringLiteral("p99"), kBlue, 1.0,
                  [](const results::PresentedSecond& s) { return s.latency_p99_millis; }},
                 {QStringLiteral("p90"), kGreen, 1.0,
                  [](const results::PresentedSecond& s) { return s.latency_p90_millis; }},
                 {QStringLiteral("p50"), kBlack, 2.0,
                  [](const results::PresentedSecond& s) { return s.latency_p50_millis; }}},
       .error_markers = true});
  specs.push_back(
      {.title = QStringLiteral("Requests per second"),
       .unit = QStringLiteral("req/s"),
       .left_label = QStringLiteral("Req/s"),
       .right_label = QString(),
       .right_unit = QString(),
       .lines = {{QStringLiteral("RPS (OK)"), kBlack, 2.0,
                  [](const results::PresentedSecond& s) { return s.ok_per_second; }},
                 {QStringLiteral("RPS (Failed)"), kOrange, 1.0,
                  [](const results::PresentedSecond& s) { return s.failed_per_second; }}}});
  specs.push_back(
      {.title = QStringLiteral("CPU"),
       .unit = QStringLiteral("%"),
       .left_label = QStringLiteral("Host %"),
       .right_label = QStringLiteral("Process %"),
       .right_unit = QStringLiteral("%"),
       .lines = {{QStringLiteral("Total"), kBlack, 2.0,
                  [](const results::PresentedSecond& s) { return s.hostCpuTotalPercent(); }},
                 {QStringLiteral("User"), kGreen, 1.0,
                  [](const results::PresentedSecond& s) { return s.host_cpu_user_percent; }},
                 {QStringLiteral("System"), kBlue, 1.0,
                  [](const results::PresentedSecond& s) { return s.host_cpu_system_percent; }},
                 {QStringLiteral("IO Wait"), kRed, 1.0,
                  [](const results::PresentedSecond& s) { return s.host_cpu_iowait_percent; }},
                 {QStringLiteral("Other processes"), kPurple, 1.0,
                  [](const results::PresentedSecond& s) { return s.other_cpu_percent; }},
                 {QStringLiteral("Worker"), kOrange, 1.5,
                  [](const results::PresentedSecond& s) { return s.worker_cpu_percent; }, true},
                 {QStringLiteral("PostgreSQL"), kGrey, 1.5,
                  [](const results::PresentedSecond& s) { return s.database_cpu_percent; }, true,
                  &hasDatabase}}});
  specs.push_back(
      {.title = QStringLiteral("Memory"),
       .unit = QStringLiteral("MiB"),
       .left_label = QStringLiteral("MiB"),
       .right_label = QStringLiteral("RAM %"),
       .right_unit = QStringLiteral("%"),
       .lines = {
           {QStringLiteral("Worker heap"), kBlack, 1.0,
            [](const results::PresentedSecond& s) { return s.worker_heap_mib; }},
           {QStringLiteral("Worker RSS"), kBlue, 1.0,
            [](const results::PresentedSecond& s) { return s.worker_rss_mib; }},
           {QStringLiteral("PostgreSQL"), kGrey, 1.0,
            [](const results::PresentedSecond& s) { return s.database_mib; }, false, &hasDatabase},
           {QStringLiteral("Host RAM used"), kGreen, 2.0,
            [](const results::PresentedSecond& s) { return s.host_ram_used_percent; }, true},
           {QStringLiteral("Other processes"), kPurple, 1.0,
            [](const results::PresentedSecond& s) { return s.other_ram_percent; }, true}}});
  specs.push_back(
      {.title = QStringLiteral("Sockets and threads"),
       .unit = QString(),
       .left_label = QStringLiteral("Count"),
       .right_label = QStringLiteral("Opens/s"),
       .right_unit = QStringLiteral("/s"),
       .lines = {
           {QStringLiteral("Sockets"), kBlack, 2.0,
            [](const results::PresentedSecond& s) { return s.host_tcp_sockets; }},
           {QStringLiteral("Worker fds"), kGrey, 1.0,
            [](const results::PresentedSecond& s) { return s.worker_open_fds; }},
           {QStringLiteral("Threads"), kPurple, 1.5,
            [](const results::PresentedSecond& s) { return s.worker_threads; }},
           {QStringLiteral("Active opens"), kBlue, 1.0,
            [](const results::PresentedSecond& s) { return s.tcp_active_opens_per_second; }, true},
           {QStringLiteral("Passive opens"), kGreen, 1.0,
            [](const results::PresentedSecond& s) { return s.tcp_passive_opens_per_second; },
            true}}});
  specs.push_back(
      {.title = QStringLiteral("Loopback throughput"),
       .unit = QStringLiteral("Mbps"),
       .left_label = QStringLiteral("Mbps"),
       .right_label = QString(),
       .right_unit = QString(),
       .lines = {{QStringLiteral("Total"), kBlack, 2.0,
                  [](const results::PresentedSecond& s) {
                    return s.loopback_rx_mbps + s.loopback_tx_mbps;
                  }},
                 {QStringLiteral("Received"), kGrey, 1.0,
                  [](const results::PresentedSecond& s) { return s.loopback_rx_mbps; }},
                 {QStringLiteral("Sent"), kGreen, 1.0,
                  [](const results::PresentedSecond& s) { return s.loopback_tx_mbps; }}}});
  return specs;
}

}  // namespace

ScenarioChart::ScenarioChart(Arrangement arrangement, QWidget* parent) : QWidget(parent) {
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->setSpacing(2);
  title_ = new QLabel(this);
  QFont heading = title_->font();
  heading.setPointSizeF(heading.pointSizeF() * 1.5);
  heading.setBold(true);
  title_->setFont(heading);
  title_->setAlignment(Qt::AlignCenter);
  outer->addWidget(title_);
  auto* grid = new QGridLayout();
  grid->setSpacing(2);
  outer->addLayout(grid, 1);
  int index = 0;
  for (PanelSpec& spec : panelSpecs()) {
    spec.compact_legend = arrangement == Arrangement::kGrid;
    auto panel = std::make_unique<ChartPanel>(std::move(spec));
    panel->view()->setParent(this);
    if (arrangement == Arrangement::kStacked) {
      grid->addWidget(panel->view(), index, 0);
    } else {
      grid->addWidget(panel->view(), index / 2, index % 2);
    }
    panels_.push_back(std::move(panel));
    ++index;
  }
}

ScenarioChart::~ScenarioChart() = default;

void ScenarioChart::setTitle(const QString& title) {
  title_->setText(title);
}

QString ScenarioChart::title() const {
  return title_->text();
}

void ScenarioChart::setSeconds(const std::vector<results::PresentedSecond>& seconds) {
  for (const std::unique_ptr<ChartPanel>& panel : panels_) {
    panel->clear();
    for (const results::PresentedSecond& second : seconds) {
      panel->add(second);
    }
    panel->refresh();
  }
}

void ScenarioChart::append(const results::PresentedSecond& second) {
  for (const std::unique_ptr<ChartPanel>& panel : panels_) {
    panel->add(second);
    panel->refresh();
  }
}

void ScenarioChart::clear() {
  for (const std::unique_ptr<ChartPanel>& panel : panels_) {
    panel->clear();
  }
}

std::size_t ScenarioChart::pointCount() const {
  return panels_.front()->pointCount();
}

QRect ScenarioChart::plotArea(int index) const {
  const ChartPanel& panel = *panels_.at(static_cast<std::size_t>(index));
  const QRectF scene_area = panel.chart()->plotArea();
  const QPolygon in_view = panel.view()->mapFromScene(scene_area);
  const QRect in_viewport = in_view.boundingRect();
  return {panel.view()->viewport()->mapTo(this, in_viewport.topLeft()), in_viewport.size()};
}

QStringList ScenarioChart::legendEntries(int index) const {
  return panels_.at(static_cast<std::size_t>(index))->legendEntries();
}

}  // namespace benchd::charts
