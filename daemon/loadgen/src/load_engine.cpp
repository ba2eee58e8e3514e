#include "phase_run.hpp"

#include <benchd/loadgen/host_limits.hpp>
#include <benchd/loadgen/load_engine.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace benchd::loadgen {
namespace {

namespace asio = boost::asio;

asio::ip::tcp::endpoint resolveTarget(const RequestTarget& target) {
  boost::system::error_code error;
  const auto address = asio::ip::make_address(target.host, error);
  if (!error) {
    return {address, target.port};
  }
  asio::io_context io;
  asio::ip::tcp::resolver resolver(io);
  const auto results = resolver.resolve(target.host, std::to_string(target.port), error);
  if (error || results.empty()) {
    throw std::runtime_error("cannot resolve host '" + target.host +
                             "': " + (error ? error.message() : "no address"));
  }
  return results.begin()->endpoint();
}

}  // namespace

unsigned defaultLoadThreads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores > 1 ? cores - 1 : 1;
}

LoadEngine::LoadEngine(EngineOptions options) : LoadEngine(options, steadyPhaseClock()) {}

LoadEngine::LoadEngine(EngineOptions options, PhaseClock& clock)
    : options_(options), clock_(&clock) {
  options_.threads = std::max(1U, options_.threads);
}

measurement::PhaseResult LoadEngine::runPhase(const scenario::StagePlan& plan,
                                              const RequestTarget& target,
                                              measurement::PhaseKind kind,
                                              const SnapshotCallback& on_snapshot) {
  stop_requested_.store(false);
  return runOnePhase(plan, target, kind, on_snapshot, options_);
}

measurement::PhaseResult LoadEngine::runOnePhase(const scenario::StagePlan& plan,
                                                 const RequestTarget& target,
                                                 measurement::PhaseKind kind,
                                                 const SnapshotCallback& on_snapshot,
                                                 const EngineOptions& options) {
  raiseOpenFileLimit();
  const HostLimitCheck limits =
      checkHostLimits(plan.peak_connections, target.delay_call_depth, readHostLimits());
  if (!limits.problems.empty()) {
    throw HostLimitError(limits.problems);
  }
  const asio::ip::tcp::endpoint endpoint = resolveTarget(target);
  measurement::PhaseResult result =
      runPhaseOnLoops(plan, options, endpoint, target, kind, *clock_, stop_requested_, on_snapshot);
  result.warnings = limits.warnings;
  return result;
}

ScenarioResult LoadEngine::runScenario(const scenario::ScenarioRow& row,
                                       const scenario::Workload& workload, RequestTarget target,
                                       const SnapshotCallback& on_snapshot,
                                       const PhaseHooks& hooks) {
  stop_requested_.store(false);
  target.delay_call_depth = row.delay_call_depth;
  target.delay_millis = row.delay_millis;
  EngineOptions options = options_;
  if (row.request_count) {
    options.request_limit = *row.request_count;
  }
  ScenarioResult result;
  for (const measurement::PhaseKind kind :
       {measurement::PhaseKind::kWarmup, measurement::PhaseKind::kTest}) {
    const bool warmup = kind == measurement::PhaseKind::kWarmup;
    const scenario::PhaseLoad load =
        warmup ? scenario::warmupPhaseOf(row) : scenario::testPhaseOf(row);
    if (load.duration.count() == 0) {
      continue;  // a row without a warm-up; a loaded row always has a test phase
    }
    if (stop_requested_.load()) {
      break;
    }
    if (hooks.before_phase) {
      hooks.before_phase(kind, load.duration);
    }
    std::optional<measurement::PhaseResult>& phase = warmup ? result.warmup : result.test;
    phase = runOnePhase(scenario::planStages(workload, load), target, kind, on_snapshot, options);
    if (hooks.after_phase && !hooks.after_phase(*phase)) {
      break;
    }
  }
  return result;
}

void LoadEngine::requestStop() noexcept {
  stop_requested_.store(true);
}

}  // namespace benchd::loadgen
