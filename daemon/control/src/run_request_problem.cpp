#include "run_request_problem.hpp"

#include "api_support.hpp"

#include <string>

namespace benchd::control {

std::optional<std::string_view> runRequestMember(runner::RunRequestField field) {
  switch (field) {
    case runner::RunRequestField::kScenarioFile:
      return "scenarioFile";
    case runner::RunRequestField::kWarmup:
      return "warmupSeconds";
    case runner::RunRequestField::kTest:
      return "testSeconds";
    case runner::RunRequestField::kRepeats:
      return "repeat";
    case runner::RunRequestField::kWinnerRule:
      return "winners";
    case runner::RunRequestField::kAa:
      return "aa";
    case runner::RunRequestField::kCpus:
      return "cpus";
    case runner::RunRequestField::kMemoryCap:
      return "memoryCap";
    case runner::RunRequestField::kCapacityResolution:
      return "capacityResolutionPercent";
    case runner::RunRequestField::kServerCpus:
    case runner::RunRequestField::kGeneratorCpus:
      break;
  }
  return std::nullopt;
}

std::optional<http::Response> runRequestProblem(const runner::RunRequestError& error) {
  const std::optional<std::string_view> member = runRequestMember(error.field());
  if (!member) {
    return std::nullopt;
  }
  std::string detail = error.what();
  if (error.field() == runner::RunRequestField::kScenarioFile) {
    detail += "; upload it first (PUT /api/v1/scenario-files/NAME)";
  }
  return fieldProblem(400, std::string(*member), detail);
}

}  // namespace benchd::control
