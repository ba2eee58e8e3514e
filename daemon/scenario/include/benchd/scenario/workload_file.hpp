#pragma once

#include <benchd/scenario/workload.hpp>

#include <filesystem>
#include <string_view>

namespace benchd::scenario {

/// Reads and validates one workload file. The workload is named after the file (without
/// ".json"); a request's "body_file" is resolved against `body_dir` (the scenarios directory)
/// and read now. Throws WorkloadFileError naming the file, the JSON path and the reason.
///
/// Format (unknown fields are errors; defaults in brackets):
///   { "description": string [""],
///     "global_rate_cap": "requestsPerSecond" [no cap],
///     "scenarios": [ {
///         "name": string of [A-Za-z0-9_-],
///         "executor": "constant-vus" | "ramping-vus" | "constant-arrival-rate"
///                     | "ramping-arrival-rate",
///         "connection_share": number in (0, 1] [1],
///         "start_target": number in [0, 1] [0]            (ramping executors only),
///         "stages": [ { "duration": [0, 1], "target": [0, 1] } ]  (ramping executors only),
///         "stage_cycles": integer >= 1 [1]                 (ramping executors only),
///         "graceful_stop_seconds": number >= 0 [30],
///         "graceful_ramp_down_seconds": number >= 0 [30]   (ramping-vus only),
///         "think_time_seconds": { "min": number >= 0, "max": number >= min } [none],
///         "discard_response_bodies": bool [false],
///         "requests": [ { "weight": number > 0 [1], "method": "GET" | "POST" | ...,
///                         "path": "/{approach}/...", "headers": { name: value } [{}],
///                         "body_file": path [none] } ] } ] }
/// Stage durations, times stage_cycles, must add up to 1 (the whole phase).
Workload loadWorkloadFile(const std::filesystem::path& path, const std::filesystem::path& body_dir);

/// Same for JSON already in memory; `source` is the file name errors show and the workload's
/// name is its stem.
Workload parseWorkload(std::string_view json, const std::filesystem::path& source,
                       const std::filesystem::path& body_dir);

}  // namespace benchd::scenario
