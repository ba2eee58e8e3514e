#pragma once

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/loadgen/load_engine.hpp>
#include <benchd/measurement/load_snapshot.hpp>
#include <benchd/measurement/phase_result.hpp>
#include <benchd/scenario/stage_plan.hpp>
#include <benchd/scenario/workload.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace benchd::loadgen::testing {

/// The request the tests send by default: the worker's epoch-millis with the target's depth and
/// delay.
inline constexpr const char* kEpochMillisPath =
    "/{approach}/epoch-millis?delayCallDepth={delayCallDepth}&delayInMillis={delayInMillis}";

/// Port of a benchd-worker serving the callbacks-asio plugin on 127.0.0.1, started on first use
/// and killed when the test process exits. Shared by the tests of one process.
std::uint16_t sharedWorkerPort();

/// A port on 127.0.0.1 nothing listens on (bound once to find it, then released).
std::uint16_t closedPort();

/// One sub-scenario of `executor` sending GET `path`, graceful stop 5 s.
scenario::SubScenario subScenario(scenario::ExecutorKind executor,
                                  std::string path = kEpochMillisPath);

/// A workload of the given sub-scenarios.
scenario::Workload workloadOf(std::vector<scenario::SubScenario> sub_scenarios,
                              scenario::RateCapSource cap = scenario::RateCapSource::kNone);

/// A target on the shared worker (or `port`) with the callbacks-asio approach.
RequestTarget targetOf(std::uint32_t delay_millis, std::optional<std::uint16_t> port = {});

/// Engine options for tests: one thread unless said otherwise, the given timeout.
EngineOptions testOptions(std::chrono::milliseconds request_timeout = std::chrono::seconds(10),
                          unsigned threads = 1);

/// A finished phase with every snapshot it delivered.
struct CapturedPhase {
  std::vector<measurement::LoadSnapshot> snapshots;
  measurement::PhaseResult result;
};

/// Plans `workload` for (connections, rate, seconds) and runs it as a test phase.
CapturedPhase runWorkload(const scenario::Workload& workload, std::uint32_t connections,
                          std::optional<std::uint32_t> rate, std::uint32_t seconds,
                          const RequestTarget& target, const EngineOptions& options);

/// Sum of the counters of `snapshots`.
measurement::LoadCounters sumOf(const std::vector<measurement::LoadSnapshot>& snapshots);

}  // namespace benchd::loadgen::testing
