#include "text_fields.hpp"

#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/stage_plan.hpp>

namespace benchd::scenario {

std::string_view rowColumnName(RowColumn column) {
  switch (column) {
    case RowColumn::kConnections:
      return "connections";
    case RowColumn::kRequestsPerSecond:
      return "requestsPerSecond";
  }
  return "connections";
}

std::optional<RowProblem> checkRowFitsWorkload(const Workload& workload, std::uint32_t connections,
                                               std::optional<std::uint32_t> requests_per_second) {
  // The rate first: without it an open-model workload cannot run at any connection count.
  if (workload.needsRequestRate() && !requests_per_second) {
    return RowProblem{RowColumn::kRequestsPerSecond,
                      "workload '" + workload.name +
                          "' has an arrival-rate executor and needs a request rate, got nothing"};
  }
  for (const SubScenario& sub_scenario : workload.sub_scenarios) {
    if (connectionsOf(sub_scenario, connections) == 0) {
      return RowProblem{RowColumn::kConnections,
                        std::to_string(connections) + " connections leave sub-scenario '" +
                            sub_scenario.name + "' of workload '" + workload.name +
                            "' none (it gets " + formatNumber(sub_scenario.connection_share) +
                            " of them)"};
    }
  }
  return std::nullopt;
}

}  // namespace benchd::scenario
