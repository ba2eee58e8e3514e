#pragma once

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/phase_clock.hpp>
#include <benchd/loadgen/request_target.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/measurement/phase_result.hpp>
#include <benchd/scenario/stage_plan.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <functional>

namespace benchd::loadgen {

/// Runs one phase: starts the event-loop threads, harvests their statistics at every interval
/// boundary into a LoadSnapshot for `on_snapshot` (called on the calling thread), forwards a
/// stop request, and sums the snapshots into the PhaseResult once the last request has ended.
/// If `on_snapshot` throws, the phase is stopped, later snapshots are not delivered, and the
/// exception is rethrown once the threads are joined. Interval boundaries, snapshot instants and
/// the phase duration are read from `clock` (see PhaseClock for what the loops use).
measurement::PhaseResult runPhaseOnLoops(
    const scenario::StagePlan& plan, const EngineOptions& options,
    const boost::asio::ip::tcp::endpoint& endpoint, const RequestTarget& target,
    measurement::PhaseKind kind, PhaseClock& clock, const std::atomic<bool>& stop_requested,
    const std::function<void(const measurement::LoadSnapshot&)>& on_snapshot);

}  // namespace benchd::loadgen
