#include <benchd/common/epoch_time.hpp>
#include <benchd/runner/run_resumption.hpp>
#include <benchd/runner/stored_request.hpp>

#include <algorithm>
#include <sstream>

namespace benchd::runner {
namespace {

std::string joined(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) {
    text += (text.empty() ? "" : ", ") + part;
  }
  return text;
}

std::string rateText(const std::optional<std::uint32_t>& rate) {
  return rate ? std::to_string(*rate) : std::string("none");
}

/// The first way `now` differs from `then`, in words ("" when they are the same row).
std::string rowDifference(const scenario::ScenarioRow& then, const scenario::ScenarioRow& now) {
  const auto number = [](const char* what, auto before, auto after) {
    std::ostringstream text;
    text << what << " " << before << ", now " << after;
    return text.str();
  };
  if (then.name != now.name) {
    return "named '" + then.name + "', now '" + now.name + "'";
  }
  if (then.workload != now.workload) {
    return "workload " + then.workload + ", now " + now.workload;
  }
  if (then.server_profiles != now.server_profiles) {
    return "server profiles '" + joined(then.server_profiles) + "', now '" +
           joined(now.server_profiles) + "'";
  }
  if (then.delay_call_depth != now.delay_call_depth) {
    return number("call depth", then.delay_call_depth, now.delay_call_depth);
  }
  if (then.delay_millis != now.delay_millis) {
    return number("delay (ms)", then.delay_millis, now.delay_millis);
  }
  if (then.connections != now.connections) {
    return number("connections", then.connections, now.connections);
  }
  if (then.requests_per_second != now.requests_per_second) {
    return "rate " + rateText(then.requests_per_second) + ", now " +
           rateText(now.requests_per_second);
  }
  if (then.warmup_seconds != now.warmup_seconds) {
    return number("warm-up (s)", then.warmup_seconds, now.warmup_seconds);
  }
  if (then.test_seconds != now.test_seconds) {
    return number("test (s)", then.test_seconds, now.test_seconds);
  }
  if (then.streams_per_connection != now.streams_per_connection) {
    return number("streams per connection", then.streams_per_connection,
                  now.streams_per_connection);
  }
  if (then.request_count != now.request_count) {
    const auto count = [](const std::optional<std::uint32_t>& requests) {
      return requests ? std::to_string(*requests) + " requests" : std::string("timed");
    };
    return "request count " + count(then.request_count) + ", now " + count(now.request_count);
  }
  if (then.capacity_goal != now.capacity_goal) {
    const auto goal = [](const std::optional<scenario::CapacityGoal>& capacity_goal) {
      return capacity_goal ? capacity_goal->text() : std::string("none");
    };
    return "capacity goal " + goal(then.capacity_goal) + ", now " + goal(now.capacity_goal);
  }
  return "";
}

void requireSameRows(const std::vector<scenario::ScenarioRow>& then,
                     const std::vector<scenario::ScenarioRow>& now, const std::string& file,
                     store::RunId run) {
  const std::string changed =
      "the scenario file " + file + " changed since run " + std::to_string(run) + " started: ";
  if (then.size() != now.size()) {
    throw ResumeError(ResumeProblem::kChanged, changed + std::to_string(then.size()) +
                                                   " rows then, " + std::to_string(now.size()) +
                                                   " now");
  }
  for (std::size_t index = 0; index < then.size(); ++index) {
    const std::string difference = rowDifference(then[index], now[index]);
    if (!difference.empty()) {
      std::string reason = changed;
      reason += "row " + std::to_string(index + 1) + " ('" + then[index].name + "') was ";
      reason += difference;
      throw ResumeError(ResumeProblem::kChanged, reason);
    }
  }
}

}  // namespace

PreparedRun prepareResumption(const store::ResultStore& store, store::RunId run,
                              const RunEnvironment& environment, const PluginCatalog* catalog) {
  const std::string name = "run " + std::to_string(run);
  const std::optional<store::RunRecord> record = store.findRun(run);
  if (!record) {
    throw ResumeError(ResumeProblem::kUnknownRun,
                      "there is no " + name + " in " + store.file().string());
  }
  switch (record->status) {
    case store::RunStatus::kQueued:
    case store::RunStatus::kRunning:
      throw ResumeError(ResumeProblem::kStillActive,
                        name + " is " + std::string(store::runStatusName(record->status)) +
                            "; only a run that ended before it finished can be resumed");
    case store::RunStatus::kCompleted:
      throw ResumeError(ResumeProblem::kCompleted,
                        name + " completed: it has every run it asked for");
    case store::RunStatus::kStopped:
    case store::RunStatus::kInterrupted:
    case store::RunStatus::kFailed:
      break;
  }
  if (record->run.request.empty()) {
    throw ResumeError(ResumeProblem::kNotResumable,
                      name + " was recorded by a benchd that did not store what it asked for " +
                          "(results store schema before version 7); start it anew");
  }
  RunRequest request = requestFromStoredJson(record->run.request);
  request.order_seed = record->run.order_seed;
  PreparedRun prepared = prepareRun(request, environment, catalog);
  RunSettings& settings = prepared.settings;
  requireSameRows(store.scenarioRows(run), plannedRows(settings.plan),
                  settings.scenario_file.string(), run);
  if (settings.plan.approaches != record->run.approaches) {
    throw ResumeError(ResumeProblem::kChanged, name + " ran " + joined(record->run.approaches) +
                                                   "; its request now gives " +
                                                   joined(settings.plan.approaches));
  }
  settings.results_dir = record->run.results_dir;
  settings.options_text = record->run.options_text;
  settings.noise_thresholds = store::noiseThresholdsOf(record->run);
  ResumedFrom resumed;
  resumed.resumes = record->run.resumes + 1;
  resumed.started_epoch_millis = record->run.started_epoch_millis;
  resumed.resumed_epoch_millis = common::epochMillisNow();
  resumed.earlier_results = store.summaries(run);
  settings.resumed = std::move(resumed);
  return prepared;
}

std::size_t missingRuns(const RunSettings& settings) {
  const std::size_t all = settings.plan.rows.size() * settings.approaches.size() *
                          std::max<std::uint32_t>(1, settings.repeats);
  const std::size_t done = settings.resumed ? settings.resumed->earlier_results.size() : 0;
  return all > done ? all - done : 0;
}

}  // namespace benchd::runner
