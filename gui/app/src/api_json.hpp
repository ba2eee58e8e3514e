#pragma once
// The API's JSON documents decoded into the engine's result model, which the charts and the
// grid view draw as benchd-report does: a `Second` (snapshot events and the seconds document)
// as a results::SecondRecord (the window draws charts::chartSecondOf of it), a `Winners`
// document as a results::WinnersGrid. Readings only, nothing derived here; absent or null
// numbers read as 0 (the daemon writes null for NaN).

#include <benchd/results/series.hpp>
#include <benchd/results/winners.hpp>

#include <QJsonObject>

namespace benchd::gui {

[[nodiscard]] results::SecondRecord secondRecordFromJson(const QJsonObject& second);
[[nodiscard]] results::WinnersGrid winnersGridFromJson(const QJsonObject& winners);

}  // namespace benchd::gui
