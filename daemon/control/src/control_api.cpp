#include <benchd/control/control_api.hpp>
#include <benchd/http/json_response.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/scenario/scenario_file_error.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <variant>

namespace benchd::control {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

http::Response jsonText(unsigned status, const rapidjson::StringBuffer& buffer) {
  return http::Response::json(status, buffer.GetString());
}

http::Response fieldProblem(unsigned status, const std::string& field, const std::string& detail) {
  return http::Problem(status, detail).extension("field", field).toResponse();
}

void string(Writer& json, const char* key, std::string_view value) {
  json.Key(key);
  json.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

/// The {id} path parameter as a run id, or nullopt (a 404: no such run can exist).
std::optional<store::RunId> runIdOf(const http::Request& request) {
  const std::string text(request.param("id").value_or(""));
  store::RunId id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || id <= 0) {
    return std::nullopt;
  }
  return id;
}

http::Response noSuchRun(const http::Request& request) {
  return fieldProblem(404, "id", "no run '" + std::string(request.param("id").value_or("")) + "'");
}

void writeRun(Writer& json, const store::RunRecord& record,
              const std::optional<RunQueueStatus>& queued) {
  json.StartObject();
  json.Key("id");
  json.Int64(record.id);
  std::string_view status = store::runStatusName(record.status);
  if (queued) {
    status = queued->kind == RunQueueStatus::Kind::kQueued ? "queued" : "running";
  }
  string(json, "status", status);
  string(json, "scenarioFile", record.run.scenario_file);
  string(json, "scenarioSet", record.run.scenario_set);
  json.Key("approaches");
  json.StartArray();
  for (const std::string& approach : record.run.approaches) {
    json.String(approach.c_str());
  }
  json.EndArray();
  json.Key("startedEpochMillis");
  json.Int64(record.run.started_epoch_millis);
  json.Key("finishedEpochMillis");
  json.Int64(record.finished_epoch_millis);
  string(json, "error", record.error);
  if (queued && queued->kind == RunQueueStatus::Kind::kQueued) {
    json.Key("queuePosition");
    json.Uint64(queued->position);
  }
  if (queued && queued->kind == RunQueueStatus::Kind::kRunning) {
    const runner::Progress& progress = queued->progress;
    json.Key("progress");
    json.StartObject();
    json.Key("row");
    json.Uint64(progress.row_number);
    json.Key("rows");
    json.Uint64(progress.row_count);
    string(json, "scenario", progress.scenario);
    string(json, "approach", progress.approach);
    string(json, "step", runner::runStepName(progress.step));
    json.Key("phaseElapsedSeconds");
    json.Double(progress.phase_elapsed_seconds);
    json.Key("phaseSeconds");
    json.Double(progress.phase_seconds);
    json.Key("runRemainingSeconds");
    json.Double(progress.run_remaining_seconds);
    json.EndObject();
  }
  json.EndObject();
}

/// The body of POST /api/v1/runs: {"scenarioFile": "...", "approaches": [...],
/// "warmupSeconds": n, "testSeconds": n, "keepCsv": bool}. Unknown members are errors.
std::variant<runner::RunRequest, http::Response> runRequestOf(const http::Request& request) {
  rapidjson::Document body;
  if (body.Parse(request.body.c_str()).HasParseError() || !body.IsObject()) {
    return fieldProblem(400, "body", "expected a JSON object");
  }
  runner::RunRequest run;
  bool have_file = false;
  for (const auto& member : body.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    const auto seconds =
        [&](std::optional<std::uint32_t>& target) -> std::optional<http::Response> {
      if (!value.IsUint() || value.GetUint() > 86'400) {
        return fieldProblem(400, std::string(name), "expected whole seconds from 0 to 86400");
      }
      target = value.GetUint();
      return std::nullopt;
    };
    if (name == "scenarioFile") {
      if (!value.IsString() || value.GetStringLength() == 0) {
        return fieldProblem(400, "scenarioFile", "expected the name of a scenario file");
      }
      const std::string file = value.GetString();
      if (file.find('/') != std::string::npos || file.find("..") != std::string::npos) {
        return fieldProblem(400, "scenarioFile",
                            "expected a file name of the scenarios folder, not a path");
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
        run.approaches.emplace_back(approach.GetString());
      }
    } else if (name == "warmupSeconds") {
      if (auto problem = seconds(run.overrides.warmup_seconds)) {
        return std::move(*problem);
      }
    } else if (name == "testSeconds") {
      if (auto problem = seconds(run.overrides.test_seconds)) {
        return std::move(*problem);
      }
      if (*run.overrides.test_seconds == 0) {
        return fieldProblem(400, "testSeconds", "the test phase needs at least 1 second");
      }
    } else if (name == "keepCsv") {
      if (!value.IsBool()) {
        return fieldProblem(400, "keepCsv", "expected true or false");
      }
      run.keep_csv = value.GetBool();
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

ControlApi::ControlApi(RunQueue& queue, store::ResultStore& store,
                       runner::RunEnvironment environment, std::string version)
    : queue_(queue),
      store_(store),
      environment_(std::move(environment)),
      version_(std::move(version)) {
  rescan();
}

void ControlApi::rescan() {
  runner::PluginCatalog fresh =
      runner::inspectPlugins(environment_.plugin_folders, environment_.worker);
  const std::scoped_lock lock(catalog_mutex_);
  catalog_ = std::move(fresh);
}

runner::PluginCatalog ControlApi::catalog() const {
  const std::scoped_lock lock(catalog_mutex_);
  return catalog_;
}

http::Router ControlApi::router() {
  http::Router router;
  router.add("GET", "/api/v1/health",
             [](const http::Request&) { return http::Response::json(200, R"({"status":"UP"})"); },
             {.is_public = true});

  router.add("GET", "/api/v1/version", [this](const http::Request&) {
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    json.StartObject();
    string(json, "benchd", version_);
    string(json, "pluginAbi", "1.0");
    json.EndObject();
    return jsonText(200, buffer);
  });

  const auto approaches = [this](const http::Request&) {
    const runner::PluginCatalog current = catalog();
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    json.StartObject();
    json.Key("accepted");
    json.StartArray();
    for (const runner::PluginDescription& plugin : current.accepted) {
      json.StartObject();
      string(json, "name", plugin.name);
      string(json, "version", plugin.version);
      string(json, "description", plugin.description);
      string(json, "concurrencyModel", plugin.concurrency_model);
      string(json, "ioStack", plugin.io_stack);
      string(json, "abi", plugin.abi);
      string(json, "path", plugin.path.string());
      json.EndObject();
    }
    json.EndArray();
    json.Key("rejected");
    json.StartArray();
    for (const runner::RejectedPlugin& plugin : current.rejected) {
      json.StartObject();
      string(json, "name", plugin.name);
      string(json, "path", plugin.path.string());
      string(json, "reason", plugin.reason);
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
    return jsonText(200, buffer);
  };
  router.add("GET", "/api/v1/approaches", approaches);
  router.add("POST", "/api/v1/approaches/rescan", [this, approaches](const http::Request& r) {
    rescan();
    return approaches(r);
  });

  router.add("POST", "/api/v1/runs", [this](const http::Request& request) {
    if (auto wrong_type = http::requireJson(request)) {
      return std::move(*wrong_type);
    }
    auto parsed = runRequestOf(request);
    if (auto* problem = std::get_if<http::Response>(&parsed)) {
      return std::move(*problem);
    }
    store::RunId id = 0;
    try {
      id = queue_.submit(std::get<runner::RunRequest>(parsed));
    } catch (const runner::RunRequestError& error) {
      return fieldProblem(400, error.field(), error.what());
    } catch (const runner::UnknownApproachError& error) {
      return fieldProblem(400, "approaches", error.what());
    } catch (const scenario::ScenarioFileError& error) {
      return fieldProblem(400, "scenarioFile", error.what());
    } catch (const RunQueueFullError& error) {
      return http::Problem(503, error.what()).toResponse().header("Retry-After", "30");
    }
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    const std::optional<store::RunRecord> record = store_.findRun(id);
    writeRun(json, *record, queue_.status(id));
    return jsonText(202, buffer).header("Location", "/api/v1/runs/" + std::to_string(id));
  });

  router.add("GET", "/api/v1/runs", [this](const http::Request&) {
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    json.StartObject();
    json.Key("runs");
    json.StartArray();
    for (const store::RunRecord& record : store_.listRuns()) {
      writeRun(json, record, queue_.status(record.id));
    }
    json.EndArray();
    json.EndObject();
    return jsonText(200, buffer);
  });

  router.add("GET", "/api/v1/runs/{id}", [this](const http::Request& request) {
    const std::optional<store::RunId> id = runIdOf(request);
    const std::optional<store::RunRecord> record = id ? store_.findRun(*id) : std::nullopt;
    if (!record) {
      return noSuchRun(request);
    }
    rapidjson::StringBuffer buffer;
    Writer json(buffer);
    writeRun(json, *record, queue_.status(*id));
    return jsonText(200, buffer);
  });

  router.add("POST", "/api/v1/runs/{id}/stop", [this](const http::Request& request) {
    const std::optional<store::RunId> id = runIdOf(request);
    if (!id || !store_.findRun(*id)) {
      return noSuchRun(request);
    }
    switch (queue_.stop(*id)) {
      case RunQueue::StopResult::kStopping:
        return http::Response::json(202, R"({"status":"stopping"})");
      case RunQueue::StopResult::kRemovedFromQueue:
        return http::Response::json(200, R"({"status":"stopped"})");
      case RunQueue::StopResult::kNotActive:
        break;
    }
    return http::Problem(409, "run " + std::to_string(*id) + " is not queued or running")
        .toResponse();
  });

  router.add("GET", "/api/v1/runs/{id}/events", [this](const http::Request& request) {
    const std::optional<store::RunId> id = runIdOf(request);
    const std::optional<store::RunRecord> record = id ? store_.findRun(*id) : std::nullopt;
    if (!record) {
      return noSuchRun(request);
    }
    // Shared by the two callbacks: the queue subscription of this stream.
    struct Subscription {
      std::mutex mutex;
      std::optional<std::uint64_t> handle;
    };
    auto subscription = std::make_shared<Subscription>();
    http::EventStreamCallbacks callbacks;
    callbacks.on_open = [this, run = *id, subscription](http::EventSink sink) {
      const std::uint64_t handle = queue_.subscribe([run, sink](const RunEvent& event) mutable {
        if (event.run != run) {
          return;
        }
        sink.push({std::to_string(event.sequence), event.type, event.data, {}});
        if (event.type == "end") {
          sink.close();
        }
      });
      {
        const std::scoped_lock lock(subscription->mutex);
        subscription->handle = handle;
      }
      // A run that is not (or no longer) queued or running has nothing more to say.
      if (!queue_.status(run)) {
        const std::optional<store::RunRecord> now = store_.findRun(run);
        rapidjson::StringBuffer buffer;
        Writer json(buffer);
        json.StartObject();
        string(json, "status", now ? store::runStatusName(now->status) : "unknown");
        string(json, "error", now ? now->error : "");
        json.EndObject();
        sink.push({"", "end", buffer.GetString(), {}});
        sink.close();
      }
    };
    callbacks.on_close = [this, subscription](http::StreamEnd) {
      std::optional<std::uint64_t> handle;
      {
        const std::scoped_lock lock(subscription->mutex);
        handle = subscription->handle;
        subscription->handle.reset();
      }
      if (handle) {
        queue_.unsubscribe(*handle);
      }
    };
    return http::Response::eventStream(std::move(callbacks));
  });
  return router;
}

}  // namespace benchd::control
