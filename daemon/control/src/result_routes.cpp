#include "api_support.hpp"
#include "results_json.hpp"

#include <benchd/control/control_api.hpp>
#include <benchd/results/comparison.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/scenario/phase_limits.hpp>

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>
#include <variant>

namespace benchd::control {
namespace {

/// A file of a run's folder as the response body, or 404 naming what is missing.
http::Response fileOf(const store::RunRecord& record, const std::filesystem::path& relative,
                      const std::string& content_type) {
  const std::filesystem::path path = std::filesystem::path(record.run.results_dir) / relative;
  std::ifstream in(path, std::ios::binary);
  if (record.run.results_dir.empty() || !std::filesystem::is_regular_file(path) || !in) {
    return fieldProblem(
        404, "file",
        "run " + std::to_string(record.id) + " has no " + relative.string() +
            (record.status == store::RunStatus::kQueued ? " yet (it is queued)" : ""));
  }
  std::ostringstream body;
  body << in.rdbuf();
  return http::Response::text(200, body.str(), content_type);
}

/// The run's results.csv: one row per (scenario, approach), the median of its runs.
results::ResultsTable tableOf(const store::ResultStore& store, store::RunId run) {
  return results::medianTable(
      results::toResultsTable(store.summaries(run), results::ValueSpelling::kExact));
}

/// The PNG charts of a run's folder, relative paths ("results.png", "<scenario>/<file>.png").
std::vector<std::string> chartsOf(const store::RunRecord& record) {
  std::vector<std::string> charts;
  if (record.run.results_dir.empty()) {
    return charts;
  }
  const std::filesystem::path root(record.run.results_dir);
  std::error_code ignored;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ignored);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ignored)) {
    if (it.depth() >= 1) {
      it.disable_recursion_pending();  // charts/{file} and charts/{folder}/{file} only
    }
    if (it->is_regular_file(ignored) && it->path().extension() == ".png") {
      charts.push_back(std::filesystem::relative(it->path(), root, ignored).generic_string());
    }
  }
  std::sort(charts.begin(), charts.end());
  return charts;
}

/// A chart named by path parameters: only files ending in ".png" in the run's folder or one
/// folder below it (the parameters cannot hold '/', '.' or '..').
http::Response chartOf(const store::RunRecord& record, const std::filesystem::path& relative) {
  if (relative.extension() != ".png") {
    return fieldProblem(404, "file", "charts are .png files; see GET .../charts for the list");
  }
  return fileOf(record, relative, "image/png");
}

/// A handler of a route under /api/v1/runs/{id}: called with the run {id} names.
using RunRouteHandler = http::Response (*)(const store::ResultStore& store,
                                           const http::Request& request,
                                           const store::RunRecord& record);

/// GET /api/v1/runs/{id}/results: the scenario rows and every summary row with diagnostics.
http::Response resultsDocument(const store::ResultStore& store, const http::Request& /*request*/,
                               const store::RunRecord& record) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "runId", std::int64_t{record.id});
  field(json, "status", store::runStatusName(record.status));
  key(json, "scenarios");
  json.StartArray();
  for (const scenario::ScenarioRow& row : store.scenarioRows(record.id)) {
    writeScenarioRow(json, row);
  }
  json.EndArray();
  key(json, "rows");
  json.StartArray();
  for (const results::SummaryRow& row : store.summaries(record.id)) {
    writeSummaryRow(json, row, true);
  }
  json.EndArray();
  json.EndObject();
  return jsonResponse(200, buffer);
}

/// One result of a run named by the route's {scenario}, {approach} and ?round= (default 1).
struct RoundResult {
  std::string scenario;
  std::string approach;
  std::uint32_t round = 1;
  store::ResultId id = 0;
};

/// The result the request names, or the problem (400 for a bad round, 404 for none).
std::variant<RoundResult, http::Response> roundResultOf(const store::ResultStore& store,
                                                        const http::Request& request,
                                                        const store::RunRecord& record) {
  RoundResult named;
  named.scenario = std::string(request.param("scenario").value_or(""));
  named.approach = std::string(request.param("approach").value_or(""));
  auto round_number = queryNumber(request, "round", 1, 1, record.run.repeats);
  if (auto* problem = std::get_if<http::Response>(&round_number)) {
    return std::move(*problem);
  }
  named.round = static_cast<std::uint32_t>(std::get<std::size_t>(round_number));
  const std::optional<store::ResultId> result =
      store.findResult(record.id, named.scenario, named.approach, named.round);
  if (!result) {
    return fieldProblem(
        404, "scenario",
        "run " + std::to_string(record.id) + " has no result for scenario '" + named.scenario +
            "' and approach '" + named.approach + "'" +
            (named.round > 1 ? " in round " + std::to_string(named.round) : std::string()));
  }
  named.id = *result;
  return named;
}

void writeResultName(JsonWriter& json, const store::RunRecord& record, const RoundResult& named) {
  field(json, "runId", std::int64_t{record.id});
  field(json, "scenario", named.scenario);
  field(json, "approach", named.approach);
  field(json, "round", std::uint64_t{named.round});
}

/// GET /api/v1/runs/{id}/results/{scenario}/{approach}/seconds?phase=&round=: one result's
/// stored seconds of one phase.
http::Response secondsDocument(const store::ResultStore& store, const http::Request& request,
                               const store::RunRecord& record) {
  measurement::PhaseKind phase = measurement::PhaseKind::kTest;
  if (const auto name = request.queryParam("phase")) {
    if (*name == "warmup" || *name == "warm-up") {
      phase = measurement::PhaseKind::kWarmup;
    } else if (*name != "test") {
      return fieldProblem(
          400, "phase",
          "expected test or warmup (also spelt warm-up), got '" + std::string(*name) + "'");
    }
  }
  auto found = roundResultOf(store, request, record);
  if (auto* problem = std::get_if<http::Response>(&found)) {
    return std::move(*problem);
  }
  const RoundResult& named = std::get<RoundResult>(found);
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  writeResultName(json, record, named);
  field(json, "phase", measurement::phaseKindName(phase));
  key(json, "seconds");
  json.StartArray();
  for (const results::SecondRecord& second : store.seconds(named.id, phase)) {
    json.StartObject();
    writeSecondMembers(json, second);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return jsonResponse(200, buffer);
}

/// GET /api/v1/runs/{id}/results/{scenario}/{approach}/trials?round=: a capacity row's
/// fixed-rate trials in the order they ran (empty for a fixed-load row).
http::Response trialsDocument(const store::ResultStore& store, const http::Request& request,
                              const store::RunRecord& record) {
  auto found = roundResultOf(store, request, record);
  if (auto* problem = std::get_if<http::Response>(&found)) {
    return std::move(*problem);
  }
  const RoundResult& named = std::get<RoundResult>(found);
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  writeResultName(json, record, named);
  key(json, "trials");
  json.StartArray();
  for (const results::CapacityTrialRecord& trial : store.capacityTrials(named.id)) {
    writeCapacityTrial(json, trial);
  }
  json.EndArray();
  json.EndObject();
  return jsonResponse(200, buffer);
}

/// GET /api/v1/runs/{id}/results.csv, from the store (the medians of repeated runs).
http::Response resultsCsv(const store::ResultStore& store, const http::Request& /*request*/,
                          const store::RunRecord& record) {
  std::ostringstream csv;
  results::writeResultsCsv(csv, tableOf(store, record.id));
  return http::Response::text(200, csv.str(), "text/csv; charset=utf-8");
}

/// GET /api/v1/runs/{id}/results.md, the file of the run's folder.
http::Response resultsMarkdown(const store::ResultStore& /*store*/,
                               const http::Request& /*request*/, const store::RunRecord& record) {
  return fileOf(record, "results.md", "text/markdown; charset=utf-8");
}

/// GET /api/v1/runs/{id}/charts: the run folder's PNG charts with their URLs.
http::Response chartList(const store::ResultStore& /*store*/, const http::Request& /*request*/,
                         const store::RunRecord& record) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  key(json, "charts");
  json.StartArray();
  for (const std::string& chart : chartsOf(record)) {
    json.StartObject();
    field(json, "name", chart);
    field(json, "url", "/api/v1/runs/" + std::to_string(record.id) + "/charts/" + chart);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return jsonResponse(200, buffer);
}

/// GET /api/v1/runs/{id}/charts/{file}: a chart of the run's folder.
http::Response chartInRunFolder(const store::ResultStore& /*store*/, const http::Request& request,
                                const store::RunRecord& record) {
  return chartOf(record, std::string(request.param("file").value_or("")));
}

/// GET /api/v1/runs/{id}/charts/{folder}/{file}: a chart of a scenario's folder.
http::Response chartInScenarioFolder(const store::ResultStore& /*store*/,
                                     const http::Request& request, const store::RunRecord& record) {
  return chartOf(record, std::filesystem::path(std::string(request.param("folder").value_or(""))) /
                             std::string(request.param("file").value_or("")));
}

/// GET /api/v1/runs/{id}/winners: the grid under the rule and thresholds the run recorded.
http::Response winnersDocument(const store::ResultStore& store, const http::Request& /*request*/,
                               const store::RunRecord& record) {
  const results::WinnersGrid grid =
      results::decideRunWinners(store.summaries(record.id), record.run.approaches,
                                record.run.winner_rule, store::noiseThresholdsOf(record.run));
  return http::Response::json(200, winnersJson(grid));
}

/// The run a compare parameter (`base`, `other`) names, or the problem with it.
std::variant<store::RunRecord, http::Response> comparedRun(const store::ResultStore& store,
                                                           const http::Request& request,
                                                           const char* name) {
  const std::optional<std::string_view> text = request.queryParam(name);
  if (!text) {
    return fieldProblem(400, name, "required: the id of a run");
  }
  const std::optional<store::RunId> id = parseRunId(*text);
  if (!id) {
    return fieldProblem(400, name, "expected the id of a run, got '" + std::string(*text) + "'");
  }
  std::optional<store::RunRecord> run = store.findRun(*id);
  if (!run) {
    return fieldProblem(404, name, "no run '" + std::string(*text) + "'");
  }
  return std::move(*run);
}

/// GET /api/v1/compare?base=&other=&threshold=: results::compareResults of two runs.
http::Response comparisonDocument(const store::ResultStore& store, const http::Request& request) {
  auto base = comparedRun(store, request, "base");
  if (auto* problem = std::get_if<http::Response>(&base)) {
    return std::move(*problem);
  }
  auto other = comparedRun(store, request, "other");
  if (auto* problem = std::get_if<http::Response>(&other)) {
    return std::move(*problem);
  }
  double threshold = results::kDefaultChangeThresholdPercent;
  if (const auto text = request.queryParam("threshold")) {
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), threshold);
    if (text->empty() || error != std::errc{} || end != text->data() + text->size() ||
        !std::isfinite(threshold) || threshold < 0 || threshold > 1000) {
      return fieldProblem(400, "threshold",
                          "expected a percentage from 0 to 1000, got '" + std::string(*text) + "'");
    }
  }
  const store::RunId base_id = std::get<store::RunRecord>(base).id;
  const store::RunId other_id = std::get<store::RunRecord>(other).id;
  const results::Comparison comparison =
      results::compareResults(tableOf(store, base_id), tableOf(store, other_id), threshold);
  return http::Response::json(200, comparisonJson(comparison, base_id, other_id));
}

}  // namespace

void ControlApi::addResultRoutes(http::Router& router) {
  // Finds the run of {id} or answers 404; then the handler.
  const auto onRun = [this](RunRouteHandler handler) {
    return [this, handler](const http::Request& request) {
      const std::optional<store::RunRecord> record = runOf(store_, request);
      return record ? handler(store_, request, *record) : noSuchRun(request);
    };
  };
  router.add("GET", "/api/v1/runs/{id}/results", onRun(resultsDocument));
  router.add("GET", "/api/v1/runs/{id}/results/{scenario}/{approach}/seconds",
             onRun(secondsDocument));
  router.add("GET", "/api/v1/runs/{id}/results/{scenario}/{approach}/trials",
             onRun(trialsDocument));
  router.add("GET", "/api/v1/runs/{id}/results.csv", onRun(resultsCsv));
  router.add("GET", "/api/v1/runs/{id}/results.md", onRun(resultsMarkdown));
  router.add("GET", "/api/v1/runs/{id}/charts", onRun(chartList));
  router.add("GET", "/api/v1/runs/{id}/charts/{file}", onRun(chartInRunFolder));
  router.add("GET", "/api/v1/runs/{id}/charts/{folder}/{file}", onRun(chartInScenarioFolder));
  router.add("GET", "/api/v1/runs/{id}/winners", onRun(winnersDocument));
  router.add("GET", "/api/v1/compare",
             [this](const http::Request& request) { return comparisonDocument(store_, request); });
}

}  // namespace benchd::control
