#pragma once

#include <benchd/loadgen/load_engine.hpp>
#include <benchd/loadgen/request_target.hpp>
#include <benchd/results/load_summary.hpp>
#include <benchd/scenario/workload.hpp>

namespace benchd::runner {

/// One load measurement against a server the caller runs (`benchd load`): the row that `run`
/// describes (connections, warm-up and test phases, rate, delays) goes through
/// LoadEngine::runScenario against `target`, and its test phase is summarised.
///
/// The engine's options decide request-count mode (EngineOptions::request_limit): the summary
/// then records the limit and, as the test phase's length, what the count took (whole seconds,
/// rounded up, at most `run.test_seconds`). `stopped_early` is the engine's: a stop requested
/// while it ran (requestStop, e.g. from a signal) ends it early and is reported, not thrown.
/// `observe` sees every snapshot of both phases, on this thread (e.g. for a progress line);
/// the summary keeps only digests of the test phase's snapshots.
///
/// Throws what runScenario throws (host limits, a target that does not resolve).
results::LoadSummary measureLoad(loadgen::LoadEngine& engine, results::LoadRunDescription run,
                                 const scenario::Workload& workload, loadgen::RequestTarget target,
                                 const loadgen::SnapshotCallback& observe);

}  // namespace benchd::runner
