#include <benchd/runner/load_measurement.hpp>

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

namespace benchd::runner {
namespace {

scenario::ScenarioRow rowOf(const results::LoadRunDescription& run) {
  scenario::ScenarioRow row;
  row.name = "benchd-load";
  row.workload = run.workload;
  row.delay_call_depth = run.delay_call_depth;
  row.delay_millis = run.delay_millis;
  row.connections = run.connections;
  row.requests_per_second = run.requests_per_second;
  row.warmup_seconds = run.warmup_seconds;
  row.test_seconds = run.test_seconds;
  return row;
}

}  // namespace

results::LoadSummary measureLoad(loadgen::LoadEngine& engine, results::LoadRunDescription run,
                                 const scenario::Workload& workload, loadgen::RequestTarget target,
                                 const loadgen::SnapshotCallback& observe) {
  std::vector<results::LoadSecondDigest> digests;
  const auto on_snapshot = [&](const measurement::LoadSnapshot& snapshot) {
    if (observe) {
      observe(snapshot);
    }
    if (snapshot.phase == measurement::PhaseKind::kTest) {
      digests.push_back(results::LoadSecondDigest::of(snapshot));
    }
  };
  const loadgen::ScenarioResult phases =
      engine.runScenario(rowOf(run), workload, std::move(target), on_snapshot);
  measurement::PhaseResult test;  // a stop during the warm-up leaves an empty test phase
  test.phase = measurement::PhaseKind::kTest;
  if (phases.test) {
    test = *phases.test;
  }
  run.request_limit = engine.options().request_limit;
  if (run.request_limit) {
    // The count ended the phase, so its length is what ran (whole seconds, rounded up), like a
    // timed run of that length.
    const auto ran = std::chrono::ceil<std::chrono::seconds>(test.duration).count();
    run.test_seconds = static_cast<std::uint32_t>(
        std::clamp<std::int64_t>(ran, 1, static_cast<std::int64_t>(run.test_seconds)));
  }
  run.stopped_early = engine.stopRequested();
  return results::makeLoadSummary(std::move(run), workload, test, std::move(digests));
}

}  // namespace benchd::runner
