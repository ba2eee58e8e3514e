#include "api_support.hpp"
#include "results_json.hpp"

#include <benchd/control/control_api.hpp>
#include <benchd/control/daemon_log.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/problem.hpp>
#include <benchd/scenario/scenario_file_error.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace benchd::control {
namespace {

/// 400 for a scenario file that cannot be used, with where it went wrong.
http::Response scenarioFileProblem(const scenario::ScenarioFileError& error) {
  http::Problem problem(400, error.what());
  problem.extension("field", "body");
  if (error.line() > 0) {
    problem.extension("line", static_cast<std::int64_t>(error.line()));
  }
  if (error.column() > 0) {
    problem.extension("column", static_cast<std::int64_t>(error.column()));
  }
  problem.extension("reason", error.reason());
  return problem.toResponse();
}

/// Whether the first media range of an Accept header is text/csv (case-insensitive).
bool prefersCsv(std::string_view accept) {
  std::string_view first = accept.substr(0, accept.find_first_of(",;"));
  while (!first.empty() && (first.front() == ' ' || first.front() == '\t')) {
    first.remove_prefix(1);
  }
  while (!first.empty() && (first.back() == ' ' || first.back() == '\t')) {
    first.remove_suffix(1);
  }
  constexpr std::string_view kCsv = "text/csv";
  return first.size() == kCsv.size() &&
         std::equal(first.begin(), first.end(), kCsv.begin(), [](char left, char right) {
           return std::tolower(static_cast<unsigned char>(left)) == right;
         });
}

/// {"name", "source", "url"} and then the rows (or the reason the file cannot be used).
void writeScenarioFile(JsonWriter& json, const ScenarioLibrary& library,
                       const ScenarioLibrary::Entry& entry, bool with_rows) {
  json.StartObject();
  field(json, "name", entry.name);
  field(json, "source", scenarioSourceName(entry.source));
  field(json, "url", "/api/v1/scenario-files/" + entry.name);
  try {
    const std::vector<scenario::ScenarioRow> rows = library.rows(entry);
    field(json, "rowCount", std::uint64_t{rows.size()});
    if (with_rows) {
      key(json, "rows");
      json.StartArray();
      for (const scenario::ScenarioRow& row : rows) {
        writeScenarioRow(json, row);
      }
      json.EndArray();
    }
  } catch (const std::exception& error) {
    field(json, "rowCount", std::uint64_t{0});
    field(json, "error", error.what());
    if (with_rows) {
      key(json, "rows");
      json.StartArray();
      json.EndArray();
    }
  }
  json.EndObject();
}

}  // namespace

void ControlApi::addScenarioFileRoutes(http::Router& router) {
  router.add("GET", "/api/v1/scenario-files", [this](const http::Request&) {
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    json.StartObject();
    key(json, "files");
    json.StartArray();
    for (const ScenarioLibrary::Entry& entry : scenarios_.list()) {
      writeScenarioFile(json, scenarios_, entry, false);
    }
    json.EndArray();
    json.EndObject();
    return jsonResponse(200, buffer);
  });

  router.add("GET", "/api/v1/scenario-files/{name}", [this](const http::Request& request) {
    const std::string name(request.param("name").value_or(""));
    const std::optional<ScenarioLibrary::Entry> entry = scenarios_.find(name);
    if (!entry) {
      return fieldProblem(404, "name", "no scenario file '" + name + "'");
    }
    // The file itself for a client whose first choice is CSV; its rows as JSON otherwise.
    if (prefersCsv(request.header("Accept").value_or(""))) {
      std::ifstream in(entry->path, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      return http::Response::text(200, text.str(), "text/csv; charset=utf-8");
    }
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    writeScenarioFile(json, scenarios_, *entry, true);
    return jsonResponse(200, buffer);
  });

  router.add("PUT", "/api/v1/scenario-files/{name}", [this](const http::Request& request) {
    if (auto wrong_type = http::requireContentType(request, "text/csv")) {
      return std::move(*wrong_type);
    }
    const std::string name(request.param("name").value_or(""));
    bool replaced = false;
    try {
      replaced = scenarios_.upload(name, request.body);
    } catch (const ScenarioNameError& error) {
      return fieldProblem(400, "name", error.what());
    } catch (const ScenarioConflictError& error) {
      return fieldProblem(409, "name", error.what());
    } catch (const scenario::ScenarioFileError& error) {
      return scenarioFileProblem(error);
    }
    logLine(LogLevel::kInfo, "scenario file " + name + (replaced ? " replaced" : " uploaded") +
                                 " (" + std::to_string(request.body.size()) + " bytes)");
    const std::string location = "/api/v1/scenario-files/" + name;
    const std::optional<ScenarioLibrary::Entry> stored = scenarios_.find(name);
    if (!stored) {
      // Removed by another client in the meantime.
      return http::Response::empty(replaced ? 200 : 201).header("Location", location);
    }
    rapidjson::StringBuffer buffer;
    JsonWriter json(buffer);
    writeScenarioFile(json, scenarios_, *stored, true);
    return jsonResponse(replaced ? 200 : 201, buffer).header("Location", location);
  });

  router.add("DELETE", "/api/v1/scenario-files/{name}", [this](const http::Request& request) {
    const std::string name(request.param("name").value_or(""));
    try {
      if (!scenarios_.remove(name)) {
        return fieldProblem(404, "name", "no uploaded scenario file '" + name + "'");
      }
    } catch (const ScenarioNameError& error) {
      return fieldProblem(404, "name", "no scenario file '" + name + "': " + error.what());
    } catch (const ScenarioConflictError& error) {
      return fieldProblem(409, "name", error.what());
    }
    logLine(LogLevel::kInfo, "scenario file " + name + " removed");
    return http::Response::empty(204);
  });
}

}  // namespace benchd::control
