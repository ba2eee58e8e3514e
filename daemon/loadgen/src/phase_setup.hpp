#pragma once

#include "arrival_timeline.hpp"
#include "prepared_request.hpp"
#include "request_budget.hpp"
#include "token_schedule.hpp"

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/request_target.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

namespace benchd::loadgen {

/// Everything the event loops of one phase share. Built by the coordinator before the loop
/// threads start and immutable afterwards (the token schedule is internally synchronised), so
/// the loops read it without locks. Outlives the loops.
struct PhaseSetup {
  /// Builds the request mixes, the arrival time lines, the rate-cap schedule and (for a test
  /// phase in request-count mode) the request budget for `plan`.
  PhaseSetup(const scenario::StagePlan& plan, const EngineOptions& options,
             boost::asio::ip::tcp::endpoint endpoint, const RequestTarget& target,
             measurement::PhaseKind kind);

  const scenario::StagePlan& plan;
  const EngineOptions& options;
  boost::asio::ip::tcp::endpoint endpoint;
  /// Under a `tls` target: one client context for every connection of the phase (TLS 1.2 at
  /// least, ALPN "http/1.1", no verification); null otherwise. Read-only once built, so every
  /// loop makes its streams from it.
  std::unique_ptr<boost::asio::ssl::context> tls;
  /// HTTP/2 (RequestTarget::http2): over `tls` with ALPN "h2", else with prior knowledge.
  bool http2 = false;
  /// RequestTarget::streams_per_connection; 1 without HTTP/2.
  std::uint32_t streams_per_connection = 1;
  std::uint32_t loop_count;
  /// The segment's loops among every loop of every segment (EngineOptions::segment): loop l of
  /// segment i of N is virtual loop i + N × l of N × loop_count, so the groups' "thing g belongs
  /// to loop g % count" rule splits the row over segments and loops at once.
  std::uint32_t virtual_loop_count;
  [[nodiscard]] std::uint32_t virtualLoopIndex(std::uint32_t loop_index) const noexcept {
    return options.segment.index + options.segment.count * loop_index;
  }
  std::vector<std::unique_ptr<RequestMix>> mixes;           ///< per sub-scenario
  std::vector<std::unique_ptr<ArrivalTimeline>> timelines;  ///< per sub-scenario; null if closed
  std::unique_ptr<TokenSchedule> tokens;                    ///< the global cap, or null
  std::unique_ptr<RequestBudget> budget;                    ///< request-count mode, or null
  bool any_closed = false;                                  ///< some sub-scenario is closed-model
  std::chrono::steady_clock::time_point start;              ///< set just before the loops start

  /// Requests the plan means this segment to send in [from, to) since the start: with a rate
  /// cap and a closed sub-scenario, the cap's slots (closed VUs take every slot the arrivals
  /// leave); otherwise the arrivals of open sub-scenarios, at most the cap's slots. 0 when the
  /// plan has no intended rate.
  [[nodiscard]] double intendedRequestsBetween(std::chrono::nanoseconds from,
                                               std::chrono::nanoseconds to) const;
  [[nodiscard]] bool hasIntendedRate() const noexcept;
};

}  // namespace benchd::loadgen
