#include <benchd/scenario/workload.hpp>

#include <algorithm>
#include <array>
#include <utility>

namespace benchd::scenario {
namespace {

constexpr std::array<std::pair<ExecutorKind, std::string_view>, 4> kExecutorNames = {{
    {ExecutorKind::kConstantVus, "constant-vus"},
    {ExecutorKind::kRampingVus, "ramping-vus"},
    {ExecutorKind::kConstantArrivalRate, "constant-arrival-rate"},
    {ExecutorKind::kRampingArrivalRate, "ramping-arrival-rate"},
}};

}  // namespace

std::string_view executorName(ExecutorKind kind) {
  for (const auto& [known, name] : kExecutorNames) {
    if (known == kind) {
      return name;
    }
  }
  return "unknown";
}

std::optional<ExecutorKind> executorFromName(std::string_view name) {
  for (const auto& [kind, known] : kExecutorNames) {
    if (known == name) {
      return kind;
    }
  }
  return std::nullopt;
}

bool isArrivalRate(ExecutorKind kind) {
  return kind == ExecutorKind::kConstantArrivalRate || kind == ExecutorKind::kRampingArrivalRate;
}

bool isRamping(ExecutorKind kind) {
  return kind == ExecutorKind::kRampingVus || kind == ExecutorKind::kRampingArrivalRate;
}

bool Workload::isOpenModel() const {
  return std::any_of(sub_scenarios.begin(), sub_scenarios.end(),
                     [](const SubScenario& sub) { return isArrivalRate(sub.executor); });
}

}  // namespace benchd::scenario
