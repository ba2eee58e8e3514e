#include <benchd/charts/widget_image.hpp>

#include <QApplication>
#include <QPixmap>
#include <QWidget>

namespace benchd::charts {

QImage renderWidget(QWidget& widget, QSize size) {
  widget.setAttribute(Qt::WA_DontShowOnScreen, true);
  widget.resize(size);
  widget.show();
  // Layouts and the charts' scene geometry settle in posted events.
  QApplication::processEvents();
  QApplication::processEvents();
  QImage image = widget.grab().toImage();
  widget.hide();
  return image;
}

}  // namespace benchd::charts
