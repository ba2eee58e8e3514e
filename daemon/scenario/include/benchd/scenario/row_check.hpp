#pragma once

#include <benchd/scenario/workload.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace benchd::scenario {

/// The scenario-row number a RowProblem is about.
enum class RowColumn : std::uint8_t {
  kConnections = 1,
  kRequestsPerSecond,
};

/// The column's name in a scenario file header: "connections" or "requestsPerSecond".
std::string_view rowColumnName(RowColumn column);

/// Why a row's numbers do not suit its workload. `reason` is one sentence fragment without the
/// column, e.g. "3 connections leave sub-scenario 'getMovies1' of workload 'w' none (it gets 0.25
/// of them)"; each caller puts it behind its own location (a file's line and column, a
/// command-line option), so every front end words the problem the same way.
struct RowProblem {
  RowColumn column = RowColumn::kConnections;
  std::string reason;
};

/// The one check that a row's connections and requestsPerSecond suit `workload`, shared by
/// scenario files, `benchd load` and planStages:
///   - a workload with an arrival-rate executor needs a request rate;
///   - every sub-scenario gets at least one connection (connectionsOf(sub, connections) > 0).
/// Returns the first problem in that order (sub-scenarios in workload order), or nullopt when the
/// row fits. Pure function; safe to call from any thread.
std::optional<RowProblem> checkRowFitsWorkload(const Workload& workload, std::uint32_t connections,
                                               std::optional<std::uint32_t> requests_per_second);

}  // namespace benchd::scenario
