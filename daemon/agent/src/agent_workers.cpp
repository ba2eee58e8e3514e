#include <benchd/agent/agent_workers.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/http/response.hpp>
#include <benchd/runner/worker_supervisor.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <utility>
#include <vector>

namespace benchd::agent {

struct AgentWorkers::Worker {
  std::string id;
  std::string approach;
  std::uint16_t port = 0;
  std::mutex mutex;  ///< guards supervisor and end
  std::unique_ptr<runner::WorkerSupervisor> supervisor;
  std::string end;  ///< how it ended, once it has
};

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

/// A problem naming the part of the request at fault, as the control API's are.
http::Response fieldProblem(const std::string& field, const std::string& detail,
                            unsigned status = 400) {
  return http::Problem(status, detail).extension("field", field).toResponse();
}

/// Strings of the array member `name` of `body`; false when it is there but not strings.
bool stringsOf(const rapidjson::Value& body, const char* name, std::vector<std::string>& out) {
  if (!body.HasMember(name))
    return true;
  if (!body[name].IsArray())
    return false;
  for (const auto& item : body[name].GetArray()) {
    if (!item.IsString())
      return false;
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return true;
}

void workerFields(Writer& json, const std::string& id, const std::string& approach,
                  const std::string& address, std::uint16_t port) {
  json.Key("id");
  json.String(id.c_str());
  json.Key("approach");
  json.String(approach.c_str());
  json.Key("address");
  json.String(address.c_str());
  json.Key("port");
  json.Uint(port);
}

}  // namespace

AgentWorkers::AgentWorkers(Options options) : options_(std::move(options)) {}

AgentWorkers::~AgentWorkers() {
  const std::lock_guard lock(mutex_);
  for (auto& [id, worker] : workers_) {
    const std::lock_guard worker_lock(worker->mutex);
    if (worker->supervisor)
      (void)worker->supervisor->stop();
  }
}

void AgentWorkers::addRoutes(http::Router& router) {
  router.add("POST", "/api/v1/agent/workers",
             [this](const http::Request& request) { return start(request); });
  router.add("GET", "/api/v1/agent/workers/{id}",
             [this](const http::Request& request) { return describe(request); });
  router.add("DELETE", "/api/v1/agent/workers/{id}", [this](const http::Request& request) {
    return stop(std::string(request.param("id").value_or("")));
  });
}

http::Response AgentWorkers::start(const http::Request& request) {
  rapidjson::Document body;
  body.Parse(request.body.c_str());
  if (body.HasParseError() || !body.IsObject())
    return fieldProblem("body", "expected a JSON object");
  if (!body.HasMember("approach") || !body["approach"].IsString())
    return fieldProblem("approach", "expected the name of an approach plugin");
  const std::string approach = body["approach"].GetString();
  if (approach.empty() || approach.find_first_of("/\\") != std::string::npos ||
      approach.front() == '.')
    return fieldProblem("approach", "expected a plugin's name, not a path: '" + approach + "'");
  runner::WorkerLaunch launch;
  if (!stringsOf(body, "profiles", launch.profiles))
    return fieldProblem("profiles", "expected an array of profile names");
  if (!stringsOf(body, "options", launch.plugin_options))
    return fieldProblem("options", "expected an array of KEY=VALUE strings");
  if (body.HasMember("threads")) {
    if (!body["threads"].IsUint() || body["threads"].GetUint() == 0 ||
        body["threads"].GetUint() > 1024)
      return fieldProblem("threads", "expected an integer from 1 to 1024");
    launch.threads = body["threads"].GetUint();
  }
  if (body.HasMember("port")) {
    if (!body["port"].IsUint() || body["port"].GetUint() > 65535)
      return fieldProblem("port", "expected a port from 0 (any) to 65535");
    launch.port = static_cast<std::uint16_t>(body["port"].GetUint());
  }

  const runner::PluginCatalog catalog = options_.catalog();
  const runner::PluginDescription* plugin = catalog.findAccepted(approach);
  if (plugin == nullptr) {
    std::string names;
    for (const auto& accepted : catalog.accepted)
      names += (names.empty() ? "" : ", ") + accepted.name;
    return fieldProblem("approach",
                        "this agent has no approach plugin '" + approach +
                            "'; it has: " + (names.empty() ? "none" : names),
                        404);
  }
  launch.worker = options_.worker;
  launch.plugin = plugin->path;
  launch.bind = options_.bind;
  launch.stop_timeout = options_.stop_timeout;

  auto worker = std::make_shared<Worker>();
  worker->approach = approach;
  try {
    worker->supervisor = std::make_unique<runner::WorkerSupervisor>(launch);
  } catch (const std::exception& error) {
    return http::problemResponse(500, "worker-not-started", error.what());
  }
  if (const auto problem = worker->supervisor->waitReady(options_.ready_timeout)) {
    (void)worker->supervisor->stop();
    return http::problemResponse(502, "worker-not-ready", approach + ": " + *problem);
  }
  worker->port = worker->supervisor->port();
  {
    const std::lock_guard lock(mutex_);
    worker->id = "w" + std::to_string(next_id_++);
    workers_[worker->id] = worker;
  }
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  workerFields(json, worker->id, approach, addressFor(request), worker->port);
  json.EndObject();
  http::Response response = http::Response::json(201, buffer.GetString());
  response.headers.set("Location", "/api/v1/agent/workers/" + worker->id);
  return response;
}

std::shared_ptr<AgentWorkers::Worker> AgentWorkers::take(const std::string& id, bool forget) {
  const std::lock_guard lock(mutex_);
  const auto found = workers_.find(id);
  if (found == workers_.end())
    return nullptr;
  std::shared_ptr<Worker> worker = found->second;
  if (forget)
    workers_.erase(found);
  return worker;
}

std::string AgentWorkers::addressFor(const http::Request& request) const {
  const bool wildcard = options_.bind == "0.0.0.0" || options_.bind == "::";
  return wildcard ? request.local_address : options_.bind;
}

http::Response AgentWorkers::describe(const http::Request& request) {
  const std::string id(request.param("id").value_or(""));
  const std::shared_ptr<Worker> worker = take(id, false);
  if (!worker)
    return fieldProblem("id", "no worker '" + id.substr(0, 64) + "'", 404);
  const std::lock_guard worker_lock(worker->mutex);
  const bool alive = worker->supervisor && worker->supervisor->alive();
  if (!alive && worker->end.empty() && worker->supervisor)
    worker->end = worker->supervisor->describeEnd();
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  workerFields(json, worker->id, worker->approach, addressFor(request), worker->port);
  json.Key("alive");
  json.Bool(alive);
  if (!alive) {
    json.Key("end");
    json.String(worker->end.c_str());
  }
  json.EndObject();
  return http::Response::json(200, buffer.GetString());
}

http::Response AgentWorkers::stop(const std::string& id) {
  const std::shared_ptr<Worker> worker = take(id, true);
  if (!worker)
    return fieldProblem("id", "no worker '" + id.substr(0, 64) + "'", 404);
  const std::lock_guard worker_lock(worker->mutex);
  const common::ExitStatus status = worker->supervisor->stop();
  const std::string end = status.describe();
  worker->end = end;  // for a GET that took the worker just before
  worker->supervisor.reset();
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  json.Key("id");
  json.String(worker->id.c_str());
  json.Key("end");
  json.String(end.c_str());
  json.EndObject();
  return http::Response::json(200, buffer.GetString());
}

}  // namespace benchd::agent
