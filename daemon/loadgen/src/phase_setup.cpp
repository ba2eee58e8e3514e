#include "phase_setup.hpp"

#include <algorithm>

namespace benchd::loadgen {

PhaseSetup::PhaseSetup(const scenario::StagePlan& stage_plan, const EngineOptions& engine_options,
                       boost::asio::ip::tcp::endpoint target_endpoint, const RequestTarget& target,
                       measurement::PhaseKind kind)
    : plan(stage_plan),
      options(engine_options),
      endpoint(std::move(target_endpoint)),
      loop_count(std::max(1U, engine_options.threads)) {
  for (const scenario::SubScenarioPlan& sub : plan.sub_scenarios) {
    mixes.push_back(std::make_unique<RequestMix>(sub.definition.requests, target));
    if (scenario::isArrivalRate(sub.definition.executor)) {
      timelines.push_back(std::make_unique<ArrivalTimeline>(sub, plan.duration));
    } else {
      timelines.push_back(nullptr);
      any_closed = true;
    }
  }
  // The cap holds for all sub-scenarios together, open-model ones included: an arrival takes a
  // slot too and waits for it.
  if (plan.global_rate_cap && *plan.global_rate_cap > 0.0) {
    tokens = std::make_unique<TokenSchedule>(*plan.global_rate_cap);
  }
  if (kind == measurement::PhaseKind::kTest && options.request_limit) {
    budget = std::make_unique<RequestBudget>(*options.request_limit);
  }
}

bool PhaseSetup::hasIntendedRate() const noexcept {
  return tokens != nullptr || std::any_of(timelines.begin(), timelines.end(),
                                          [](const auto& line) { return line != nullptr; });
}

double PhaseSetup::intendedRequestsBetween(std::chrono::nanoseconds from,
                                           std::chrono::nanoseconds to) const {
  double arrivals = 0.0;
  for (const auto& timeline : timelines) {
    if (timeline) {
      arrivals +=
          static_cast<double>(timeline->arrivalsBefore(to) - timeline->arrivalsBefore(from));
    }
  }
  if (!tokens) {
    return arrivals;
  }
  const std::chrono::nanoseconds end = plan.duration;
  const auto overlap = std::min(to, end) - std::min(from, end);
  const double slots = overlap.count() > 0
                           ? *plan.global_rate_cap * std::chrono::duration<double>(overlap).count()
                           : 0.0;
  return any_closed ? slots : std::min(arrivals, slots);
}

}  // namespace benchd::loadgen
