#include <benchd/charts/winners_grid_view.hpp>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>

namespace benchd::charts {

WinnersGridView::WinnersGridView(QWidget* parent) : QWidget(parent), geometry_(grid_, font()) {
  setFocusPolicy(Qt::StrongFocus);
  setAccessibleName(QStringLiteral("Winners grid"));
  setAutoFillBackground(true);
  QPalette white = palette();
  white.setColor(QPalette::Window, Qt::white);
  setPalette(white);
}

void WinnersGridView::setGrid(results::WinnersGrid grid) {
  grid_ = std::move(grid);
  geometry_ = WinnersGridGeometry(grid_, font());
  if (selected_ &&
      (selected_->first >= grid_.metrics.size() || selected_->second >= grid_.scenarios.size())) {
    selected_.reset();
  }
  updateGeometry();
  update();
}

QSize WinnersGridView::sizeHint() const {
  return geometry_.size();
}

QSize WinnersGridView::minimumSizeHint() const {
  // Small enough for any window; below half size the grid's text stops being readable.
  return geometry_.size() / 2;
}

double WinnersGridView::scale() const {
  const QSize natural = geometry_.size();
  if (natural.isEmpty()) {
    return 1.0;
  }
  return std::min({1.0, static_cast<double>(width()) / natural.width(),
                   static_cast<double>(height()) / natural.height()});
}

QRect WinnersGridView::cellRect(std::size_t metric, std::size_t scenario) const {
  const QRect natural = geometry_.cellRect(metric, scenario);
  const double factor = scale();
  return QRectF(natural.x() * factor, natural.y() * factor, natural.width() * factor,
                natural.height() * factor)
      .toAlignedRect();
}

std::optional<std::pair<std::size_t, std::size_t>> WinnersGridView::cellAt(QPoint position) const {
  const double factor = scale();
  return geometry_.cellAt(QPointF(position.x() / factor, position.y() / factor).toPoint());
}

void WinnersGridView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  if (!hasGrid()) {
    painter.drawText(rect(), Qt::AlignCenter, QStringLiteral("No results yet"));
    return;
  }
  painter.scale(scale(), scale());
  paintWinnersGrid(painter, grid_, geometry_, font(), selected_);
}

void WinnersGridView::select(std::size_t metric, std::size_t scenario) {
  selected_ = std::make_pair(metric, scenario);
  update();
  const QString description = describeCell(grid_, metric, scenario);
  setAccessibleDescription(description);
  emit cellSelected(description);
}

void WinnersGridView::keyPressEvent(QKeyEvent* event) {
  if (!hasGrid() || grid_.scenarios.empty()) {
    QWidget::keyPressEvent(event);
    return;
  }
  std::size_t metric = selected_ ? selected_->first : 0;
  std::size_t scenario = selected_ ? selected_->second : 0;
  const std::size_t last_metric = grid_.metrics.size() - 1;
  const std::size_t last_scenario = grid_.scenarios.size() - 1;
  switch (event->key()) {
    case Qt::Key_Up:
      metric = metric > 0 ? metric - 1 : 0;
      break;
    case Qt::Key_Down:
      metric = selected_ ? std::min(metric + 1, last_metric) : 0;
      break;
    case Qt::Key_Left:
      scenario = scenario > 0 ? scenario - 1 : 0;
      break;
    case Qt::Key_Right:
      scenario = selected_ ? std::min(scenario + 1, last_scenario) : 0;
      break;
    case Qt::Key_Home:
      metric = 0;
      scenario = 0;
      break;
    default:
      QWidget::keyPressEvent(event);
      return;
  }
  select(metric, scenario);
}

void WinnersGridView::mousePressEvent(QMouseEvent* event) {
  if (const auto cell = cellAt(event->position().toPoint())) {
    select(cell->first, cell->second);
  }
  setFocus(Qt::MouseFocusReason);
}

bool WinnersGridView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && hasGrid()) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const auto cell = cellAt(help->pos())) {
      QToolTip::showText(help->globalPos(), describeCell(grid_, cell->first, cell->second), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace benchd::charts
