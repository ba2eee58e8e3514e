#pragma once
// The winners grid as the original draws it (docs/gui.md#the-winners-grid): metrics down, scenarios
// across; each cell shows the best approach's value above the runner-up's, each with its
// overall rank and an `E` when it had errors (then in red), filled with the best approach's
// colour at the cell's alpha (faded: a small lead; white: both top two had errors); a legend
// with "(rank) approach" and "N% wins" per approach and the "no winner" share.
//
// It draws a results::WinnersGrid, the engine's one ranking (computeWinners); it computes
// nothing. benchd-gui shows it in a scroll area (arrow keys walk the cells, the selected
// cell's full ranking is announced with cellSelected), benchd-report renders it to
// results.png. GUI thread only.

#include <benchd/results/winners.hpp>

#include <QFont>
#include <QImage>
#include <QRect>
#include <QSize>
#include <QWidget>
#include <cstddef>
#include <optional>

class QPainter;

namespace benchd::charts {

/// Where everything of a grid drawing goes, for a grid and a base font.
class WinnersGridGeometry {
 public:
  WinnersGridGeometry(const results::WinnersGrid& grid, const QFont& font);

  [[nodiscard]] QSize size() const { return size_; }
  [[nodiscard]] QRect cellRect(std::size_t metric, std::size_t scenario) const;
  [[nodiscard]] QRect gridRect() const;
  [[nodiscard]] QRect legendRect() const { return legend_; }
  /// The cell at `point`, if any: (metric, scenario).
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> cellAt(QPoint point) const;

  [[nodiscard]] int cellWidth() const { return cell_width_; }
  [[nodiscard]] int cellHeight() const { return cell_height_; }
  [[nodiscard]] int titleHeight() const { return title_height_; }
  [[nodiscard]] int labelWidth() const { return label_width_; }

 private:
  std::size_t metrics_ = 0;
  std::size_t scenarios_ = 0;
  int cell_width_ = 0;
  int cell_height_ = 0;
  int title_height_ = 0;
  int label_width_ = 0;
  QRect legend_;
  QSize size_;
};

/// Draws `grid` at (0, 0) with `geometry` (made from the same grid and `font`).
/// `selected`: a cell to outline, if any.
void paintWinnersGrid(QPainter& painter, const results::WinnersGrid& grid,
                      const WinnersGridGeometry& geometry, const QFont& font,
                      std::optional<std::pair<std::size_t, std::size_t>> selected = std::nullopt);

/// The grid as an image of its natural size on white (results.png).
[[nodiscard]] QImage renderWinnersGrid(const results::WinnersGrid& grid, const QFont& font);

/// One cell's ranking as a sentence, for screen readers, tooltips and the status line:
/// "latency_millis_p99 in get-movies: winner callbacks-asio 12.5 (rank 1), then
/// fibers-asio 14.1 (rank 3) E; lead 13%".
[[nodiscard]] QString describeCell(const results::WinnersGrid& grid, std::size_t metric,
                                   std::size_t scenario);

class WinnersGridView : public QWidget {
  Q_OBJECT

 public:
  explicit WinnersGridView(QWidget* parent = nullptr);

  void setGrid(results::WinnersGrid grid);
  [[nodiscard]] const results::WinnersGrid& grid() const { return grid_; }
  [[nodiscard]] bool hasGrid() const { return !grid_.metrics.empty(); }
  /// The grid's natural size (every cell readable at the widget's font).
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;
  /// Where a cell is drawn, in widget coordinates (scaled, see scale()).
  [[nodiscard]] QRect cellRect(std::size_t metric, std::size_t scenario) const;
  /// The factor the grid is drawn at: 1, or less so that it fits the widget when the widget
  /// is smaller than sizeHint() (a full grid in a 1366 x 768 window, without scrolling).
  [[nodiscard]] double scale() const;

 signals:
  /// The keyboard or the mouse selected a cell; `description` is describeCell's sentence.
  void cellSelected(const QString& description);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void select(std::size_t metric, std::size_t scenario);
  /// The cell under a widget position, undoing scale().
  [[nodiscard]] std::optional<std::pair<std::size_t, std::size_t>> cellAt(QPoint position) const;

  results::WinnersGrid grid_;
  WinnersGridGeometry geometry_;
  std::optional<std::pair<std::size_t, std::size_t>> selected_;
};

}  // namespace benchd::charts
