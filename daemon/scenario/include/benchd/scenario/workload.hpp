#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::scenario {

/// How a sub-scenario produces load. The names and their meaning are k6's executors.
enum class ExecutorKind {
  kConstantVus = 1,      ///< closed model: all its connections loop for the whole phase
  kRampingVus,           ///< closed model: the number of active connections follows the stages
  kConstantArrivalRate,  ///< open model: iterations start at a fixed rate, whatever the latency
  kRampingArrivalRate,   ///< open model: the start rate follows the stages
};

/// k6's name: "constant-vus", "ramping-vus", "constant-arrival-rate", "ramping-arrival-rate".
std::string_view executorName(ExecutorKind kind);

/// The executor with that k6 name, or nullopt.
std::optional<ExecutorKind> executorFromName(std::string_view name);

/// True for the open-model executors, whose targets are request rates rather than connections.
bool isArrivalRate(ExecutorKind kind);

/// True for the executors whose load follows a list of stages.
bool isRamping(ExecutorKind kind);

/// One k6 stage, scaled to the row it runs for: over `duration_fraction` of the phase the load
/// moves linearly from where the previous stage ended to `target_fraction` of the sub-scenario's
/// connections (VU executors) or of its request rate (arrival-rate executors). Both are in
/// [0, 1].
struct Stage {
  double duration_fraction = 0.0;
  double target_fraction = 0.0;
};

/// A uniformly random pause after each request, like the original's sleep(1 + 2 * random()).
struct ThinkTime {
  std::chrono::milliseconds min{0};
  std::chrono::milliseconds max{0};  ///< >= min
};

struct HttpHeader {
  std::string name;
  std::string value;
};

/// One kind of request in a sub-scenario's mix.
struct RequestTemplate {
  double weight = 1.0;  ///< relative frequency within the mix; > 0
  std::string method;   ///< "GET", "POST", ...
  /// Starts with '/'; may contain {approach}, {delayCallDepth} and {delayInMillis}
  /// (see renderPath).
  std::string path_template;
  std::vector<HttpHeader> headers;
  std::filesystem::path body_file;  ///< where the body came from; empty without a body
  std::string body;  ///< the body as sent; a .json body file is re-serialised compactly
};

/// One group of connections doing the same thing (a k6 "scenario"). All sub-scenarios of a
/// workload run in parallel for the whole phase.
struct SubScenario {
  std::string name;
  ExecutorKind executor = ExecutorKind::kConstantVus;
  /// This sub-scenario's part of the row's connections (and of its requestsPerSecond for the
  /// arrival-rate executors); its whole number of connections is floor(share * connections).
  double connection_share = 1.0;
  double start_target_fraction = 0.0;  ///< ramping executors: the load at t = 0, as a fraction
  std::vector<Stage> stages;           ///< ramping executors only; never empty for those
  std::uint32_t stage_cycles = 1;      ///< the stage list runs this many times in a row
  /// At the end of the phase, iterations in flight may finish for this long (k6 gracefulStop).
  std::chrono::milliseconds graceful_stop{30'000};
  /// ramping-vus: a connection removed by a falling stage may finish its iteration for this long
  /// (k6 gracefulRampDown).
  std::chrono::milliseconds graceful_ramp_down{30'000};
  std::optional<ThinkTime> think_time;  ///< none: the next request follows at once
  bool discard_response_bodies = false;
  std::vector<RequestTemplate> requests;  ///< never empty
};

/// Where the global request-rate limit (k6's "rps" option) comes from.
enum class RateCapSource {
  kNone = 1,                   ///< no limit
  kScenarioRequestsPerSecond,  ///< the row's requestsPerSecond, when the row gives one
};

/// A load shape, independent of the numbers of a scenario row: what the original expressed as a
/// k6 script. Loaded from a JSON file in scenarios/workloads/ (see loadWorkloadFile).
struct Workload {
  std::string name;  ///< the file name without ".json"
  std::string description;
  std::filesystem::path source_file;
  RateCapSource global_rate_cap = RateCapSource::kNone;
  std::vector<SubScenario> sub_scenarios;  ///< never empty; shares add up to at most 1

  /// True when some sub-scenario is an open model (an arrival-rate executor): its latency is
  /// timed from the intended send time and late or dropped arrivals are counted.
  [[nodiscard]] bool isOpenModel() const;

  /// True when a row running this workload must give requestsPerSecond (an open model's rate).
  [[nodiscard]] bool needsRequestRate() const { return isOpenModel(); }
};

}  // namespace benchd::scenario
