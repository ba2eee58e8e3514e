#pragma once

#include <benchd/scenario/scenario_row.hpp>
#include <benchd/scenario/workload.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace benchd::runner {

/// Checks, before any load, that an approach answers every request of the row's workload
/// correctly: a fast but wrong approach must not win. Each distinct request of the workload is
/// sent once (with the row's delayCallDepth and delayInMillis; over TLS for a `tls` row) and
/// must get a 2xx; known
/// endpoints are checked by content against the microservice core run in-process with the
/// row's server profiles:
///  * GET  .../epoch-millis: an integer between the send and the receive time;
///  * GET  .../movies?directorLastName=X: the same JSON as the core's answer for X;
///  * POST .../movies: the core's answer to the same body (read-only: the input echoed;
///    read-write: the saved movies, compared without their ids);
///  * DELETE and unknown paths: the status only.
/// Returns nullopt when everything was right, else one sentence naming the request, what was
/// expected and what came back. Blocking; safe to call from any thread.
std::optional<std::string> findWrongAnswer(std::uint16_t port, const std::string& approach,
                                           const scenario::ScenarioRow& row,
                                           const scenario::Workload& workload);

}  // namespace benchd::runner
