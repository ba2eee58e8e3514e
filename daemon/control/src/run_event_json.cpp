#include "run_event_json.hpp"

#include "json_fields.hpp"
#include "results_json.hpp"

namespace benchd::control {
namespace {

void where(JsonWriter& json, const runner::Progress& progress) {
  field(json, "row", std::uint64_t{progress.row_number});
  field(json, "rows", std::uint64_t{progress.row_count});
  field(json, "scenario", progress.scenario);
  field(json, "approach", progress.approach);
  field(json, "approachNumber", std::uint64_t{progress.approach_number});
  field(json, "approaches", std::uint64_t{progress.approach_count});
  field(json, "step", runner::runStepName(progress.step));
  field(json, "phaseElapsedSeconds", progress.phase_elapsed_seconds);
  field(json, "phaseSeconds", progress.phase_seconds);
  field(json, "runElapsedSeconds", progress.run_elapsed_seconds);
  field(json, "runRemainingSeconds", progress.run_remaining_seconds);
}

}  // namespace

std::string phaseEventJson(const runner::Progress& progress) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  where(json, progress);
  json.EndObject();
  return buffer.GetString();
}

std::string snapshotEventJson(const runner::Progress& progress,
                              const results::SecondRecord& second) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  where(json, progress);
  writeSecondMembers(json, second);
  json.EndObject();
  return buffer.GetString();
}

std::string rowEventJson(const results::SummaryRow& row) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  writeSummaryRow(json, row, false);
  return buffer.GetString();
}

std::string endEventJson(std::string_view status, const std::string& error) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "status", status);
  field(json, "error", error);
  json.EndObject();
  return buffer.GetString();
}

}  // namespace benchd::control
