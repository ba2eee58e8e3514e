#include <benchd/charts/winners_grid_view.hpp>
#include <benchd/results/metric_format.hpp>

#include <QFontMetrics>
#include <QPainter>
#include <QStringList>
#include <QtMath>
#include <algorithm>
#include <cmath>

namespace benchd::charts {
namespace {

constexpr int kMargin = 16;
constexpr int kLegendGap = 24;
constexpr int kLegendSwatch = 18;
constexpr double kLabelAngleDegrees = 20.0;  // the original's rotated scenario names
const QString kTitle = QStringLiteral("Best Approaches by Metric and Scenario");
const QString kSubtitle = QStringLiteral(
    "Each cell: best approach above runner-up, with overall rank; saturation shows the win "
    "margin.\nLegend: approaches ranked by wins, and in red the scenarios each did not complete "
    "(OOM: at its memory cap). Red text and E: that approach had errors in the scenario.");

QFont scaled(const QFont& font, double factor, bool bold) {
  QFont result = font;
  result.setPointSizeF(font.pointSizeF() * factor);
  result.setBold(bold);
  return result;
}

QString valueText(const results::RankedResult& ranked) {
  return ranked.text.empty() ? QStringLiteral("0") : QString::fromStdString(ranked.text);
}

std::size_t rankOf(const results::WinnersGrid& grid, const std::string& approach) {
  const results::ApproachStanding* standing = grid.standing(approach);
  return standing != nullptr ? standing->rank : 0;
}

QString entryText(const results::WinnersGrid& grid, const results::RankedResult& ranked) {
  QString text =
      QStringLiteral("%1 (%2)").arg(valueText(ranked)).arg(rankOf(grid, ranked.approach));
  if (ranked.has_errors) {
    text += QStringLiteral(" E");
  }
  return text;
}

QColor namedColour(const std::string& name) {
  const std::string_view hex = results::colourHex(name);
  return hex.empty() ? QColor(Qt::lightGray)
                     : QColor(QString::fromLatin1(hex.data(), static_cast<qsizetype>(hex.size())));
}

/// The cell's fill: its colour at `alpha` over white, as matplotlib composes it.
QColor cellFill(const results::WinnersCell& cell) {
  if (cell.outcome == results::CellOutcome::kEmpty) {
    return {0xee, 0xee, 0xee};
  }
  const QColor colour = namedColour(cell.colour);
  const double alpha = std::clamp(cell.alpha, 0.0, 1.0);
  const auto blend = [alpha](int channel) {
    return static_cast<int>(std::lround(255.0 * (1.0 - alpha) + channel * alpha));
  };
  return {blend(colour.red()), blend(colour.green()), blend(colour.blue())};
}

/// Black text on light cells, white on dark ones (maroon at full saturation); errors in red,
/// or a light red on dark cells, where red would not read.
QColor textColour(const QColor& fill, bool errors) {
  const bool dark = fill.lightnessF() < 0.45;
  if (errors) {
    return dark ? QColor(0xff, 0xa0, 0xa0) : QColor(0xd0, 0x00, 0x00);
  }
  return dark ? QColor(Qt::white) : QColor(Qt::black);
}

/// The legend's line under an approach's wins when some of its results did not complete: the
/// scenarios, as the source study marked a server its memory cap ended, e.g. "OOM: many, huge"
/// or "failed: many". Empty when all completed.
QString incompleteText(const results::WinnersGrid& grid, const std::string& approach) {
  QStringList out_of_memory;
  QStringList failed;
  for (const results::IncompleteResult& result : grid.incomplete) {
    if (result.approach == approach) {
      (result.out_of_memory ? out_of_memory : failed)
          .append(QString::fromStdString(result.scenario));
    }
  }
  QStringList parts;
  if (!out_of_memory.isEmpty()) {
    parts.append(QStringLiteral("OOM: ") + out_of_memory.join(QStringLiteral(", ")));
  }
  if (!failed.isEmpty()) {
    parts.append(QStringLiteral("failed: ") + failed.join(QStringLiteral(", ")));
  }
  return parts.join(QStringLiteral("; "));
}

}  // namespace

WinnersGridGeometry::WinnersGridGeometry(const results::WinnersGrid& grid, const QFont& font)
    : metrics_(grid.metrics.size()), scenarios_(grid.scenarios.size()) {
  const QFontMetrics metrics(font);
  const QFontMetrics bold(scaled(font, 1.0, true));
  const QFontMetrics title(scaled(font, 1.6, true));
  cell_width_ = std::max(110, bold.horizontalAdvance(QStringLiteral("1,234,567 (5) E")) + 12);
  cell_height_ = metrics.height() * 2 + 10;
  title_height_ = title.height() + metrics.height() * 2 + 24;
  label_width_ = 0;
  for (const std::string& name : grid.metrics) {
    label_width_ = std::max(label_width_, metrics.horizontalAdvance(QString::fromStdString(name)));
  }
  label_width_ += 12;
  int longest_scenario = 0;
  for (const std::string& name : grid.scenarios) {
    longest_scenario =
        std::max(longest_scenario, metrics.horizontalAdvance(QString::fromStdString(name)));
  }
  const double angle = qDegreesToRadians(kLabelAngleDegrees);
  const int labels_height =
      static_cast<int>(std::ceil(longest_scenario * std::sin(angle) + metrics.height() * 2));
  int legend_width = metrics.horizontalAdvance(QStringLiteral("100% no winner")) + kLegendSwatch;
  for (const results::ApproachStanding& standing : grid.standings) {
    legend_width =
        std::max(legend_width,
                 metrics.horizontalAdvance(QStringLiteral("(%1) %2")
                                               .arg(standing.rank)
                                               .arg(QString::fromStdString(standing.approach))) +
                     kLegendSwatch + 8);
    legend_width =
        std::max(legend_width, metrics.horizontalAdvance(incompleteText(grid, standing.approach)) +
                                   kLegendSwatch + 8);
  }
  const QRect cells = gridRect();
  const int legend_height =
      static_cast<int>(grid.standings.size() + 1) * (metrics.height() * 3) + metrics.height();
  legend_ = QRect(cells.right() + kLegendGap,
                  cells.top() + std::max(0, (cells.height() - legend_height) / 2), legend_width,
                  legend_height);
  const int width =
      std::max({legend_.right() + kMargin, title.horizontalAdvance(kTitle) + 2 * kMargin,
                metrics.horizontalAdvance(kSubtitle.section('\n', 0, 0)) + 2 * kMargin});
  const int height = std::max(cells.bottom() + labels_height, legend_.bottom()) + kMargin;
  size_ = QSize(width, height);
}

QRect WinnersGridGeometry::gridRect() const {
  return {kMargin + label_width_, title_height_, cell_width_ * static_cast<int>(scenarios_),
          cell_height_ * static_cast<int>(metrics_)};
}

QRect WinnersGridGeometry::cellRect(std::size_t metric, std::size_t scenario) const {
  const QRect cells = gridRect();
  return {cells.left() + cell_width_ * static_cast<int>(scenario),
          cells.top() + cell_height_ * static_cast<int>(metric), cell_width_, cell_height_};
}

std::optional<std::pair<std::size_t, std::size_t>> WinnersGridGeometry::cellAt(QPoint point) const {
  const QRect cells = gridRect();
  if (!cells.contains(point) || cell_width_ <= 0 || cell_height_ <= 0) {
    return std::nullopt;
  }
  const auto scenario = static_cast<std::size_t>((point.x() - cells.left()) / cell_width_);
  const auto metric = static_cast<std::size_t>((point.y() - cells.top()) / cell_height_);
  if (metric >= metrics_ || scenario >= scenarios_) {
    return std::nullopt;
  }
  return std::make_pair(metric, scenario);
}

void paintWinnersGrid(QPainter& painter, const results::WinnersGrid& grid,
                      const WinnersGridGeometry& geometry, const QFont& font,
                      std::optional<std::pair<std::size_t, std::size_t>> selected) {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  const QFont bold = scaled(font, 1.0, true);
  const QFontMetrics metrics(font);

  // Titles.
  painter.setPen(Qt::black);
  painter.setFont(scaled(font, 1.6, true));
  const QFontMetrics title_metrics(painter.font());
  painter.drawText(QRect(0, kMargin / 2, geometry.size().width(), title_metrics.height()),
                   Qt::AlignHCenter | Qt::AlignVCenter, kTitle);
  painter.setFont(font);
  painter.drawText(QRect(0, kMargin / 2 + title_metrics.height() + 4, geometry.size().width(),
                         metrics.height() * 2),
                   Qt::AlignHCenter | Qt::AlignTop, kSubtitle);

  // Cells.
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      const results::WinnersCell& cell = grid.cell(metric, scenario);
      const QRect rect = geometry.cellRect(metric, scenario);
      const QColor fill = cellFill(cell);
      painter.fillRect(rect, fill);
      painter.setPen(QColor(0xb0, 0xb0, 0xb0));
      painter.drawRect(rect.adjusted(0, 0, -1, -1));
      const QRect upper(rect.left() + 2, rect.top() + 3, rect.width() - 4, metrics.height());
      const QRect lower(rect.left() + 2, rect.top() + 5 + metrics.height(), rect.width() - 4,
                        metrics.height());
      if (const results::RankedResult* top = cell.top()) {
        painter.setFont(bold);
        painter.setPen(textColour(fill, top->has_errors));
        // "~": the top two are not shown to differ (the cell stays white).
        const QString prefix =
            cell.outcome == results::CellOutcome::kUndecided ? QStringLiteral("~ ") : QString();
        painter.drawText(upper, Qt::AlignCenter, prefix + entryText(grid, *top));
      }
      if (const results::RankedResult* runner_up = cell.runnerUp();
          runner_up != nullptr && cell.ranked.size() > 1) {
        painter.setFont(font);
        painter.setPen(textColour(fill, runner_up->has_errors));
        painter.drawText(lower, Qt::AlignCenter, entryText(grid, *runner_up));
      }
    }
  }
  if (selected) {
    QPen outline(QColor(0x10, 0x60, 0xff));
    outline.setWidth(3);
    painter.setPen(outline);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(geometry.cellRect(selected->first, selected->second).adjusted(1, 1, -2, -2));
  }

  // Metric names left of the rows, scenario names below the columns, rotated.
  painter.setFont(font);
  painter.setPen(Qt::black);
  const QRect cells = geometry.gridRect();
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    const QRect rect = geometry.cellRect(metric, 0);
    painter.drawText(QRect(kMargin, rect.top(), geometry.labelWidth() - 8, rect.height()),
                     Qt::AlignRight | Qt::AlignVCenter,
                     QString::fromStdString(grid.metrics[metric]));
  }
  for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
    const QRect rect = geometry.cellRect(0, scenario);
    const QString name = QString::fromStdString(grid.scenarios[scenario]);
    painter.save();
    // The label's end sits a little right of the column's centre, as matplotlib's rotated,
    // right-aligned tick labels do.
    painter.translate(QPoint(rect.center().x() + rect.width() / 4, cells.bottom() + 6));
    painter.rotate(-kLabelAngleDegrees);
    painter.drawText(QRect(-metrics.horizontalAdvance(name), 0, metrics.horizontalAdvance(name),
                           metrics.height()),
                     Qt::AlignRight | Qt::AlignTop, name);
    painter.restore();
  }

  // Legend: rank order, then the draw share.
  const QRect legend = geometry.legendRect();
  int y = legend.top();
  const int entry_height = metrics.height() * 3;
  for (const results::ApproachStanding& standing : grid.standings) {
    painter.fillRect(QRect(legend.left(), y + 2, kLegendSwatch, kLegendSwatch),
                     namedColour(standing.colour));
    painter.setPen(Qt::black);
    painter.drawText(QPoint(legend.left() + kLegendSwatch + 6, y + metrics.ascent()),
                     QStringLiteral("(%1) %2")
                         .arg(standing.rank)
                         .arg(QString::fromStdString(standing.approach)));
    painter.drawText(
        QPoint(legend.left() + kLegendSwatch + 6, y + metrics.height() + metrics.ascent()),
        QStringLiteral("%1% wins").arg(standing.percent));
    if (const QString incomplete = incompleteText(grid, standing.approach); !incomplete.isEmpty()) {
      painter.setPen(textColour(Qt::white, true));
      painter.drawText(
          QPoint(legend.left() + kLegendSwatch + 6, y + 2 * metrics.height() + metrics.ascent()),
          incomplete);
    }
    y += entry_height;
  }
  if (grid.draws > 0) {
    const QRect swatch(legend.left(), y + 2, kLegendSwatch, kLegendSwatch);
    painter.fillRect(swatch, Qt::white);
    painter.setPen(Qt::black);
    painter.drawRect(swatch.adjusted(0, 0, -1, -1));
    painter.drawText(QPoint(legend.left() + kLegendSwatch + 6, y + metrics.ascent()),
                     QStringLiteral("%1% no winner").arg(grid.draw_percent));
  }
  painter.restore();
}

QImage renderWinnersGrid(const results::WinnersGrid& grid, const QFont& font) {
  const WinnersGridGeometry geometry(grid, font);
  QImage image(geometry.size(), QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  paintWinnersGrid(painter, grid, geometry, font);
  painter.end();
  return image;
}

QString describeCell(const results::WinnersGrid& grid, std::size_t metric, std::size_t scenario) {
  const results::WinnersCell& cell = grid.cell(metric, scenario);
  QString text = QStringLiteral("%1 in %2: ")
                     .arg(QString::fromStdString(grid.metrics[metric]),
                          QString::fromStdString(grid.scenarios[scenario]));
  switch (cell.outcome) {
    case results::CellOutcome::kEmpty:
      return text + QStringLiteral("no approach ran this scenario");
    case results::CellOutcome::kDraw:
      text += QStringLiteral("no winner; ");
      break;
    case results::CellOutcome::kUndecided:
      text += QStringLiteral("no significant difference; ");
      break;
    case results::CellOutcome::kWin:
      text += QStringLiteral("winner ");
      break;
  }
  QStringList entries;
  for (const results::RankedResult& ranked : cell.ranked) {
    const QString interval =
        ranked.runs > 1
            ? QStringLiteral(" [%1, %2] over %3 runs (%4 to %5)")
                  .arg(QString::fromStdString(results::formatMetricValue(ranked.low)),
                       QString::fromStdString(results::formatMetricValue(ranked.high)))
                  .arg(ranked.runs)
                  .arg(QString::fromStdString(results::formatMetricValue(ranked.lowest)),
                       QString::fromStdString(results::formatMetricValue(ranked.highest)))
            : QString();
    entries << QStringLiteral("%1 %2%3 (rank %4)%5")
                   .arg(QString::fromStdString(ranked.approach), valueText(ranked), interval)
                   .arg(rankOf(grid, ranked.approach))
                   .arg(ranked.has_errors ? QStringLiteral(" with errors") : QString());
  }
  text += entries.join(QStringLiteral(", then "));
  if (cell.ranked.size() > 1) {
    text += std::isfinite(cell.lead)
                ? QStringLiteral("; lead %1%").arg(std::lround(cell.lead * 100.0))
                : QStringLiteral("; runner-up at 0");
  }
  if (!cell.verdict.empty()) {
    text += QStringLiteral("; ") + QString::fromStdString(cell.verdict);
  }
  return text;
}

}  // namespace benchd::charts
