#include "api_support.hpp"
#include "run_request_problem.hpp"

#include <benchd/control/control_api.hpp>
#include <benchd/control/daemon_log.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/runner/memory_cap.hpp>
#include <benchd/runner/stored_request.hpp>
#include <benchd/scenario/phase_limits.hpp>
#include <benchd/scenario/scenario_file_error.hpp>

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <variant>

namespace benchd::control {
namespace {

/// The body of POST /api/v1/runs: {"scenarioFile": "...", "approaches": [...],
/// "warmupSeconds": n, "testSeconds": n, "keepCsv": bool, "repeat": n, "seed": n, "aa": "...",
/// "winners": "significant" | "original", "cpus": "split" | "shared"}. Unknown members are errors.
/// Checks the body's shape only; runner::prepareRun checks what the request asks for (e.g. a test
/// phase of at least 1 s), and runRequestProblem names its refusals in the API's words.
std::variant<runner::RunRequest, http::Response> runRequestOf(const http::Request& request) {
  rapidjson::Document body;
  if (body.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
              request.body.data(), request.body.size())
          .HasParseError() ||
      !body.IsObject()) {
    return fieldProblem(400, "body", "expected a JSON object");
  }
  runner::RunRequest run;
  bool have_file = false;
  for (const auto& member : body.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    const auto seconds =
        [&](std::optional<std::uint32_t>& target) -> std::optional<http::Response> {
      if (!value.IsUint() || value.GetUint() > scenario::kMaxPhaseSeconds) {
        return fieldProblem(400, std::string(name),
                            "expected " + scenario::phaseSecondsExpectation());
      }
      target = value.GetUint();
      return std::nullopt;
    };
    if (name == "scenarioFile") {
      if (!value.IsString() || value.GetStringLength() == 0) {
        return fieldProblem(400, "scenarioFile", "expected the name of a scenario file");
      }
      const std::string file(value.GetString(), value.GetStringLength());
      // A name of the library (".csv" may be left off), never a path.
      if (const auto problem = ScenarioLibrary::nameProblem(file);
          problem && ScenarioLibrary::nameProblem(file + ".csv")) {
        return fieldProblem(400, "scenarioFile",
                            *problem + " (a scenario file's name, not a path)");
      }
      run.scenario_file = file;
      have_file = true;
    } else if (name == "approaches") {
      if (!value.IsArray()) {
        return fieldProblem(400, "approaches", "expected an array of approach names");
      }
      for (const auto& approach : value.GetArray()) {
        if (!approach.IsString()) {
          return fieldProblem(400, "approaches", "expected an array of approach names");
        }
        run.approaches.emplace_back(approach.GetString(), approach.GetStringLength());
      }
    } else if (name == "warmupSeconds") {
      if (auto problem = seconds(run.overrides.warmup_seconds)) {
        return std::move(*problem);
      }
    } else if (name == "testSeconds") {
      if (auto problem = seconds(run.overrides.test_seconds)) {
        return std::move(*problem);
      }
    } else if (name == "repeat") {
      if (!value.IsUint()) {  // the range is runner::prepareRun's to check
        return fieldProblem(400, "repeat", "expected a number of runs");
      }
      run.repeats = value.GetUint();
    } else if (name == "seed") {
      if (!value.IsUint64()) {
        return fieldProblem(400, "seed", "expected a whole number from 0 to 2^64 - 1");
      }
      run.order_seed = value.GetUint64();
    } else if (name == "aa") {
      if (!value.IsString() || value.GetStringLength() == 0) {
        return fieldProblem(400, "aa", "expected an approach name");
      }
      run.aa_approach = std::string(value.GetString(), value.GetStringLength());
    } else if (name == "winners") {
      if (!value.IsString()) {
        return fieldProblem(400, "winners", "expected 'significant' or 'original'");
      }
      run.winner_rule = std::string(value.GetString(), value.GetStringLength());
    } else if (name == "cpus") {
      if (!value.IsString()) {
        return fieldProblem(400, "cpus", "expected 'split' or 'shared'");
      }
      run.cpus = std::string(value.GetString(), value.GetStringLength());
    } else if (name == "keepCsv") {
      if (!value.IsBool()) {
        return fieldProblem(400, "keepCsv", "expected true or false");
      }
      run.keep_csv = value.GetBool();
    } else if (name == "memoryCap") {
      // "512M" as on the command line, or bytes; the range and the machine's support are
      // runner::prepareRun's to check.
      if (value.IsString()) {
        try {
          run.memory_cap_bytes =
              runner::parseMemorySize(std::string_view(value.GetString(), value.GetStringLength()));
        } catch (const std::invalid_argument& error) {
          return fieldProblem(400, "memoryCap", error.what());
        }
      } else if (value.IsUint64()) {
        run.memory_cap_bytes = value.GetUint64();
      } else {
        return fieldProblem(400, "memoryCap", "expected a size such as \"512M\" or bytes");
      }
    } else if (name == "capacityResolutionPercent") {
      if (!value.IsNumber()) {
        return fieldProblem(400, "capacityResolutionPercent", "expected a number of percent");
      }
      run.capacity_resolution_percent = value.GetDouble();
    } else {
      return fieldProblem(400, std::string(name), "unknown member '" + std::string(name) + "'");
    }
  }
  if (!have_file) {
    return fieldProblem(400, "scenarioFile", "required");
  }
  return run;
}

}  // namespace

void ControlApi::addRunRoutes(http::Router& router) {
  const auto to = [this](http::Response (ControlApi::*handler)(const http::Request&)) {
    return [this, handler](const http::Request& request) { return (this->*handler)(request); };
  };
  // Finds the run of {id} or answers 404; then the handler.
  const auto onRun =
      [this](http::Response (ControlApi::*handler)(const http::Request&, const store::RunRecord&)) {
        return [this, handler](const http::Request& request) {
          const std::optional<store::RunRecord> record = runOf(store_, request);
          return record ? (this->*handler)(request, *record) : noSuchRun(request);
        };
      };
  router.add("POST", "/api/v1/runs", to(&ControlApi::createRun));
  router.add("GET", "/api/v1/runs", to(&ControlApi::listRuns));
  router.add("GET", "/api/v1/runs/{id}", onRun(&ControlApi::getRun));
  router.add("DELETE", "/api/v1/runs/{id}", onRun(&ControlApi::deleteRun));
  router.add("POST", "/api/v1/runs/{id}/stop", onRun(&ControlApi::stopRun));
  router.add("POST", "/api/v1/runs/{id}/resume", onRun(&ControlApi::resumeRun));
}

/// POST /api/v1/runs: checks the request, queues the run and answers with it (202).
http::Response ControlApi::createRun(const http::Request& request) {
  if (auto wrong_type = http::requireJson(request)) {
    return std::move(*wrong_type);
  }
  auto parsed = runRequestOf(request);
  if (auto* problem = std::get_if<http::Response>(&parsed)) {
    return std::move(*problem);
  }
  // Not the request's fault (e.g. the scenarios folder lacks a workload's file): say what.
  const auto cannot_prepare = [](const std::exception& error) {
    logLine(LogLevel::kError, std::string("cannot prepare a run: ") + error.what());
    return http::Problem(500, std::string("the run cannot be prepared: ") + error.what())
        .toResponse();
  };
  store::RunId id = 0;
  try {
    const runner::PluginCatalog approaches = catalog();
    id = queue_.submit(std::get<runner::RunRequest>(parsed), &approaches);
  } catch (const runner::RunRequestError& error) {
    if (std::optional<http::Response> problem = runRequestProblem(error)) {
      return std::move(*problem);
    }
    return cannot_prepare(error);
  } catch (const runner::UnknownApproachError& error) {
    // Where a client of the API sees more; the daemon's plugin folders are its operator's.
    return fieldProblem(
        400, "approaches",
        std::string(error.what()) +
            (error.noneAccepted() ? " (GET /api/v1/approaches shows what was found and why it "
                                    "was rejected)"
                                  : " (GET /api/v1/approaches lists them)"));
  } catch (const scenario::ScenarioFileError& error) {
    return fieldProblem(400, "scenarioFile", error.what());
  } catch (const RunQueueFullError& error) {
    return http::Problem(503, error.what()).toResponse().header("Retry-After", "30");
  } catch (const RunQueueClosedError& error) {
    return http::Problem(503, error.what()).toResponse();
  } catch (const std::exception& error) {
    return cannot_prepare(error);
  }
  const std::string location = "/api/v1/runs/" + std::to_string(id);
  const std::optional<store::RunRecord> record = store_.findRun(id);
  if (!record) {
    // Stopped and deleted by another client in the meantime.
    return http::Response::empty(202).header("Location", location);
  }
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  writeRun(json, *record, queue_.status(id));
  return jsonResponse(202, buffer).header("Location", location);
}

/// GET /api/v1/runs?status=&limit=&offset=: a page of runs, newest first.
http::Response ControlApi::listRuns(const http::Request& request) {
  store::RunQuery query;
  if (const auto status = request.queryParam("status")) {
    query.status = store::runStatusFromName(*status);
    if (!query.status) {
      return fieldProblem(400, "status",
                          "expected queued, running, completed, stopped, failed or interrupted, "
                          "got '" +
                              std::string(*status) + "'");
    }
  }
  auto limit = queryNumber(request, "limit", 50, 1, 1000);
  if (auto* problem = std::get_if<http::Response>(&limit)) {
    return std::move(*problem);
  }
  auto offset = queryNumber(request, "offset", 0, 0, std::numeric_limits<std::int32_t>::max());
  if (auto* problem = std::get_if<http::Response>(&offset)) {
    return std::move(*problem);
  }
  query.limit = std::get<std::size_t>(limit);
  query.offset = std::get<std::size_t>(offset);
  const std::size_t total = store_.countRuns(query.status);
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  key(json, "runs");
  json.StartArray();
  for (const store::RunRecord& record : store_.listRuns(query)) {
    writeRun(json, record, queue_.status(record.id));
  }
  json.EndArray();
  field(json, "total", std::uint64_t{total});
  field(json, "offset", std::uint64_t{query.offset});
  field(json, "limit", std::uint64_t{query.limit});
  json.EndObject();
  return jsonResponse(200, buffer);
}

/// GET /api/v1/runs/{id}: the run with its queue position or progress.
http::Response ControlApi::getRun(const http::Request& /*request*/,
                                  const store::RunRecord& record) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  writeRun(json, record, queue_.status(record.id));
  return jsonResponse(200, buffer);
}

/// DELETE /api/v1/runs/{id}: a finished run, its stored data and its folder (never a folder
/// outside the daemon's results folder); 409 while it is queued or running.
http::Response ControlApi::deleteRun(const http::Request& /*request*/,
                                     const store::RunRecord& record) {
  const store::RunId id = record.id;
  if (queue_.status(id)) {
    return fieldProblem(409, "id",
                        "run " + std::to_string(id) +
                            " is queued or running; stop it (POST /api/v1/runs/" +
                            std::to_string(id) + "/stop) before deleting it");
  }
  store_.deleteRun(id);
  logLine(LogLevel::kInfo, "run " + std::to_string(id) + " deleted");
  // Only a folder the daemon made for the run; never a path outside its results folder.
  const std::filesystem::path folder(record.run.results_dir);
  if (isInsideFolder(folder, environment_.output_dir)) {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
  return http::Response::empty(204);
}

/// POST /api/v1/runs/{id}/stop: stops a running run (202) or drops a waiting one (200).
http::Response ControlApi::stopRun(const http::Request& /*request*/,
                                   const store::RunRecord& record) {
  const store::RunId id = record.id;
  const RunQueue::StopResult stopped = queue_.stop(id);
  if (stopped != RunQueue::StopResult::kNotActive) {
    logLine(LogLevel::kInfo, "run " + std::to_string(id) + " stopped on request");
  }
  switch (stopped) {
    case RunQueue::StopResult::kStopping:
      return http::Response::json(202, R"({"status":"stopping"})");
    case RunQueue::StopResult::kRemovedFromQueue:
      return http::Response::json(200, R"({"status":"stopped"})");
    case RunQueue::StopResult::kNotActive:
      break;
  }
  return fieldProblem(409, "id", "run " + std::to_string(id) + " is not queued or running");
}

/// POST /api/v1/runs/{id}/resume: queues a run that ended before it finished (stopped,
/// interrupted, failed) to go on with the runs it lacks, under its id (202 with the run).
http::Response ControlApi::resumeRun(const http::Request& request, const store::RunRecord& record) {
  const store::RunId id = record.id;
  try {
    const runner::PluginCatalog approaches = catalog();
    queue_.resume(id, &approaches);
  } catch (const runner::ResumeError& error) {
    switch (error.problem()) {
      case runner::ResumeProblem::kUnknownRun:
        return noSuchRun(request);  // deleted meanwhile
      case runner::ResumeProblem::kStillActive:
      case runner::ResumeProblem::kCompleted:
        return fieldProblem(409, "id", error.what());
      case runner::ResumeProblem::kNotResumable:
      case runner::ResumeProblem::kChanged:
        return fieldProblem(422, "id", error.what());
    }
    return fieldProblem(422, "id", error.what());
  } catch (const runner::StoredRequestError& error) {
    return fieldProblem(422, "id", error.what());
  } catch (const runner::UnknownApproachError& error) {
    return fieldProblem(422, "id",
                        std::string("the run cannot be resumed: ") + error.what() +
                            " (GET /api/v1/approaches lists the approaches there are)");
  } catch (const RunQueueFullError& error) {
    return http::Problem(503, error.what()).toResponse().header("Retry-After", "30");
  } catch (const RunQueueClosedError& error) {
    return http::Problem(503, error.what()).toResponse();
  } catch (const std::exception& error) {
    // The scenario file is gone or no longer loads, a plugin cannot be inspected, ...
    return fieldProblem(422, "id", std::string("the run cannot be resumed: ") + error.what());
  }
  const std::optional<store::RunRecord> resumed = store_.findRun(id);
  if (!resumed) {
    return http::Response::empty(202);  // stopped and deleted by another client meanwhile
  }
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  writeRun(json, *resumed, queue_.status(id));
  return jsonResponse(202, buffer);
}

}  // namespace benchd::control
