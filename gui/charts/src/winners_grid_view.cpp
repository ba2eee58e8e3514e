#include <benchd/charts/winners_grid_view.hpp>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

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
  resize(geometry_.size());
  updateGeometry();
  update();
}

QSize WinnersGridView::sizeHint() const {
  return geometry_.size();
}

QRect WinnersGridView::cellRect(std::size_t metric, std::size_t scenario) const {
  return geometry_.cellRect(metric, scenario);
}

void WinnersGridView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  if (!hasGrid()) {
    painter.drawText(rect(), Qt::AlignCenter, QStringLiteral("No results yet"));
    return;
  }
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
  if (const auto cell = geometry_.cellAt(event->position().toPoint())) {
    select(cell->first, cell->second);
  }
  setFocus(Qt::MouseFocusReason);
}

bool WinnersGridView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && hasGrid()) {
    auto* help = static_cast<QHelpEvent*>(event);
    if (const auto cell = geometry_.cellAt(help->pos())) {
      QToolTip::showText(help->globalPos(), describeCell(grid_, cell->first, cell->second), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace benchd::charts
