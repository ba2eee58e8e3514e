#include "phase_setup.hpp"

#include "loop_share.hpp"
#include "tls_client_context.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace benchd::loadgen {

PhaseSetup::PhaseSetup(const scenario::StagePlan& stage_plan, const EngineOptions& engine_options,
                       boost::asio::ip::tcp::endpoint target_endpoint, const RequestTarget& target,
                       measurement::PhaseKind kind)
    : plan(stage_plan),
      options(engine_options),
      endpoint(std::move(target_endpoint)),
      loop_count(std::max(1U, engine_options.threads)),
      virtual_loop_count(engine_options.segment.count * loop_count) {
  const LoadSegment& segment = engine_options.segment;
  if (segment.count == 0 || segment.index >= segment.count) {
    throw std::invalid_argument("load segment " + std::to_string(segment.index) + "/" +
                                std::to_string(segment.count) +
                                ": expected an index below a count of at least 1");
  }
  if (segment.count > 1 && engine_options.request_limit) {
    throw std::invalid_argument(
        "a request count cannot be split into load segments; give the row a duration");
  }
  if (target.streams_per_connection == 0 || (target.streams_per_connection > 1 && !target.http2)) {
    throw std::invalid_argument(
        "streams per connection: " + std::to_string(target.streams_per_connection) +
        " (more than 1 needs HTTP/2; at least 1)");
  }
  http2 = target.http2;
  streams_per_connection = target.http2 ? target.streams_per_connection : 1;
  if (target.tls)
    tls = makeTlsClientContext(target.http2);
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
    tokens = std::make_unique<TokenSchedule>(*plan.global_rate_cap, segment.index, segment.count);
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
  const LoadSegment& segment = options.segment;
  // The segment's arrivals are those numbered index modulo count (loop_share.hpp).
  const auto ours = [&segment](std::uint64_t arrivals) {
    return loopShare(arrivals, segment.index, segment.count);
  };
  double arrivals = 0.0;
  for (const auto& timeline : timelines) {
    if (timeline) {
      arrivals += static_cast<double>(ours(timeline->arrivalsBefore(to)) -
                                      ours(timeline->arrivalsBefore(from)));
    }
  }
  if (!tokens) {
    return arrivals;
  }
  const std::chrono::nanoseconds end = plan.duration;
  const auto overlap = std::min(to, end) - std::min(from, end);
  const double slots = overlap.count() > 0 ? *plan.global_rate_cap / segment.count *
                                                 std::chrono::duration<double>(overlap).count()
                                           : 0.0;
  return any_closed ? slots : std::min(arrivals, slots);
}

}  // namespace benchd::loadgen
