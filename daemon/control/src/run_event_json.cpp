#include "run_event_json.hpp"

#include "api_support.hpp"
#include "results_json.hpp"

namespace benchd::control {

std::string phaseEventJson(const runner::Progress& progress) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  writeProgressMembers(json, progress);
  json.EndObject();
  return buffer.GetString();
}

std::string snapshotEventJson(const runner::Progress& progress,
                              const results::SecondRecord& second) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  writeProgressMembers(json, progress);
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

std::string trialEventJson(const runner::Progress& progress, const scenario::CapacityGoal& goal,
                           const results::CapacityTrialRecord& trial) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "scenario", progress.scenario);
  field(json, "approach", progress.approach);
  field(json, "round", std::uint64_t{progress.round});
  field(json, "goal", goal.text());
  field(json, "goalBoundMillis", goal.bound_millis);
  key(json, "trial");
  writeCapacityTrial(json, trial);
  json.EndObject();
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
