#pragma once

#include <QImage>
#include <QSize>

class QWidget;

namespace benchd::charts {

/// Lays `widget` out at `size` without putting it on a screen and grabs it as an image. Works
/// under Qt's offscreen platform (QT_QPA_PLATFORM=offscreen), which is how benchd-report
/// renders without a display. GUI thread only.
[[nodiscard]] QImage renderWidget(QWidget& widget, QSize size);

}  // namespace benchd::charts
