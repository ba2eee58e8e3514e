#pragma once
// Pixel checks for rendered charts: "ink" is whatever is clearly not the background (white)
// nor the light grey of grid lines and frames, so a plot area with a drawn line has ink and an
// empty one has none.

#include <QColor>
#include <QImage>
#include <QRect>

namespace benchd::gui::testing {

inline bool isInk(QColor colour) {
  return colour.lightness() < 150 || colour.saturation() > 90;
}

/// Pixels of `area` (clipped to the image) for which `accept` holds.
template <typename Predicate>
int countPixels(const QImage& image, QRect area, Predicate accept) {
  const QRect clipped = area.intersected(image.rect());
  int found = 0;
  for (int y = clipped.top(); y <= clipped.bottom(); ++y) {
    for (int x = clipped.left(); x <= clipped.right(); ++x) {
      if (accept(image.pixelColor(x, y))) {
        ++found;
      }
    }
  }
  return found;
}

inline int inkPixels(const QImage& image, QRect area) {
  return countPixels(image, area, isInk);
}

inline bool isRed(QColor colour) {
  return colour.red() > 180 && colour.green() < 90 && colour.blue() < 90;
}

}  // namespace benchd::gui::testing
