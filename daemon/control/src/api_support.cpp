#include "api_support.hpp"

#include <benchd/control/run_queue.hpp>
#include <benchd/http/problem.hpp>

#include <algorithm>
#include <charconv>

namespace benchd::control {

http::Response jsonResponse(unsigned status, const rapidjson::StringBuffer& buffer) {
  return http::Response::json(status, buffer.GetString());
}

http::Response fieldProblem(unsigned status, const std::string& field, const std::string& detail) {
  return http::Problem(status, detail).extension("field", field).toResponse();
}

std::optional<store::RunId> parseRunId(std::string_view text) {
  store::RunId id = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || id <= 0) {
    return std::nullopt;
  }
  return id;
}

std::optional<store::RunId> runIdOf(const http::Request& request) {
  return parseRunId(request.param("id").value_or(""));
}

std::optional<store::RunRecord> runOf(const store::ResultStore& store,
                                      const http::Request& request) {
  const std::optional<store::RunId> id = runIdOf(request);
  return id ? store.findRun(*id) : std::nullopt;
}

void writeProgressMembers(JsonWriter& json, const runner::Progress& progress) {
  field(json, "row", std::uint64_t{progress.row_number});
  field(json, "rows", std::uint64_t{progress.row_count});
  field(json, "scenario", progress.scenario);
  field(json, "approach", progress.approach);
  field(json, "approachNumber", std::uint64_t{progress.approach_number});
  field(json, "approaches", std::uint64_t{progress.approach_count});
  field(json, "round", std::uint64_t{progress.round});
  field(json, "repeats", std::uint64_t{progress.repeats});
  field(json, "step", runner::runStepName(progress.step));
  field(json, "phaseElapsedSeconds", progress.phase_elapsed_seconds);
  field(json, "phaseSeconds", progress.phase_seconds);
  field(json, "runElapsedSeconds", progress.run_elapsed_seconds);
  field(json, "runRemainingSeconds", progress.run_remaining_seconds);
}

http::Response noSuchRun(const http::Request& request) {
  return fieldProblem(404, "id", "no run '" + std::string(request.param("id").value_or("")) + "'");
}

void writeRun(JsonWriter& json, const store::RunRecord& record,
              const std::optional<RunQueueStatus>& queued) {
  json.StartObject();
  field(json, "id", std::int64_t{record.id});
  std::string_view status = store::runStatusName(record.status);
  if (queued) {
    status = queued->kind == RunQueueStatus::Kind::kQueued ? "queued" : "running";
  }
  field(json, "status", status);
  field(json, "scenarioFile", std::filesystem::path(record.run.scenario_file).filename().string());
  field(json, "scenarioSet", record.run.scenario_set);
  key(json, "approaches");
  json.StartArray();
  for (const std::string& approach : record.run.approaches) {
    value(json, approach);
  }
  json.EndArray();
  field(json, "options", record.run.options_text);
  field(json, "repeats", std::uint64_t{record.run.repeats});
  field(json, "seed", record.run.order_seed);
  field(json, "winners", results::winnerRuleName(record.run.winner_rule));
  field(json, "startedEpochMillis", std::int64_t{record.run.started_epoch_millis});
  field(json, "finishedEpochMillis", std::int64_t{record.finished_epoch_millis});
  field(json, "error", record.error);
  field(json, "failedResults", std::uint64_t{record.failed_results});
  field(json, "resumes", std::uint64_t{record.run.resumes});
  if (queued && queued->kind == RunQueueStatus::Kind::kQueued) {
    field(json, "queuePosition", std::uint64_t{queued->position});
  }
  if (queued && queued->kind == RunQueueStatus::Kind::kRunning) {
    key(json, "progress");
    json.StartObject();
    writeProgressMembers(json, queued->progress);
    json.EndObject();
  }
  json.EndObject();
}

std::variant<std::size_t, http::Response> queryNumber(const http::Request& request,
                                                      std::string_view name, std::size_t fallback,
                                                      std::size_t minimum, std::size_t maximum) {
  const std::optional<std::string_view> text = request.queryParam(name);
  if (!text) {
    return fallback;
  }
  std::size_t number = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), number);
  if (text->empty() || error != std::errc{} || end != text->data() + text->size() ||
      number < minimum || number > maximum) {
    return fieldProblem(400, std::string(name),
                        "expected a whole number from " + std::to_string(minimum) + " to " +
                            std::to_string(maximum) + ", got '" + std::string(*text) + "'");
  }
  return number;
}

bool isInsideFolder(const std::filesystem::path& path, const std::filesystem::path& folder) {
  std::error_code ignored;
  const std::filesystem::path inner = std::filesystem::weakly_canonical(path, ignored);
  const std::filesystem::path outer = std::filesystem::weakly_canonical(folder, ignored);
  const auto [folder_end, inner_at] =
      std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return !outer.empty() && folder_end == outer.end() && inner_at != inner.end();
}

}  // namespace benchd::control
