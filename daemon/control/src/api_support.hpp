#pragma once

#include <benchd/common/json_writing.hpp>
#include <benchd/control/run_queue.hpp>
#include <benchd/http/request.hpp>
#include <benchd/http/response.hpp>
#include <benchd/store/result_store.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace benchd::control {

// The JSON helpers every route file uses.
using common::field;
using common::JsonWriter;
using common::key;
using common::numberOrNull;
using common::value;

// What the route files of ControlApi share. Pure functions.

/// A JSON document response.
http::Response jsonResponse(unsigned status, const rapidjson::StringBuffer& buffer);

/// An RFC 9457 problem with a `field` member naming the request part at fault.
http::Response fieldProblem(unsigned status, const std::string& field, const std::string& detail);

/// A whole number from a query parameter within [minimum, maximum], `fallback` when absent; a
/// 400 field problem naming the parameter otherwise.
std::variant<std::size_t, http::Response> queryNumber(const http::Request& request,
                                                      std::string_view name, std::size_t fallback,
                                                      std::size_t minimum, std::size_t maximum);

/// `text` as a run id (a whole number above 0), or nothing (no run can have such an id).
std::optional<store::RunId> parseRunId(std::string_view text);
/// The {id} path parameter as a run id, or nothing.
std::optional<store::RunId> runIdOf(const http::Request& request);

/// The members of a progress report (where a run stands), into an object the caller opened:
/// row, rows, scenario, approach, approachNumber, approaches, step, phaseElapsedSeconds,
/// phaseSeconds, runElapsedSeconds, runRemainingSeconds.
void writeProgressMembers(JsonWriter& json, const runner::Progress& progress);

/// 404 for the {id} of `request`.
http::Response noSuchRun(const http::Request& request);
/// The stored run the {id} of `request` names, or nothing (answer noSuchRun): the first step of
/// every route under /api/v1/runs/{id}.
std::optional<store::RunRecord> runOf(const store::ResultStore& store,
                                      const http::Request& request);

/// The JSON object of a run (schema `Run`): its record, and where it stands in the queue when
/// it is queued or running.
void writeRun(JsonWriter& json, const store::RunRecord& record,
              const std::optional<RunQueueStatus>& queued);

/// Whether `path` lies inside `folder` (both made absolute and normalised first; an empty folder
/// holds nothing): the daemon touches no file outside its own folders.
bool isInsideFolder(const std::filesystem::path& path, const std::filesystem::path& folder);

}  // namespace benchd::control
