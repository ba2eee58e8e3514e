#pragma once

#include <stdexcept>

namespace benchd::scenario {

/// A workload file that cannot be used. what() names the file, the JSON path of the offending
/// field and the reason, e.g.
/// "scenarios/workloads/x.json: scenarios[1].stages[0].target: expected a number between 0 and 1".
class WorkloadFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace benchd::scenario
