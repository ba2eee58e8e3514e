#pragma once
// The API's JSON documents decoded into the engine's result model, which the charts and the
// grid view draw as benchd-report does: a `Second` (snapshot events and the seconds document)
// as the results::PresentedSecond the daemon wrote it from, a `Winners` document as a
// results::WinnersGrid. Readings only, nothing converted or derived here (the API carries the
// charts' units and derived values); absent or null numbers read as 0 (the daemon writes null
// for NaN).

#include <benchd/results/presented_second.hpp>
#include <benchd/results/winners.hpp>

#include <QJsonObject>

namespace benchd::gui {

[[nodiscard]] results::PresentedSecond presentedSecondFromJson(const QJsonObject& second);
[[nodiscard]] results::WinnersGrid winnersGridFromJson(const QJsonObject& winners);

}  // namespace benchd::gui
