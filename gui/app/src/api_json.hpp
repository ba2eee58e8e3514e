#pragma once
// The API's JSON documents as the charts' data: a `Second` (snapshot events and the seconds
// document) as a ChartSecond, a `Winners` document as the engine's results::WinnersGrid, which
// the grid view draws. Readings only; absent or null numbers read as 0 (the daemon writes
// null for NaN).

#include <benchd/charts/chart_second.hpp>
#include <benchd/results/winners.hpp>

#include <QJsonObject>

namespace benchd::gui {

[[nodiscard]] charts::ChartSecond chartSecondFromJson(const QJsonObject& second);
[[nodiscard]] results::WinnersGrid winnersGridFromJson(const QJsonObject& winners);

}  // namespace benchd::gui
