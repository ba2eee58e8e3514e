// Snapshots and phases: one snapshot per interval, totals equal to their sum, warm-up data
// discarded, early stop, limits checked before the phase starts. The snapshot schedule is
// tested exactly on a manual clock; one real-time test checks it on the steady clock.
#include "engine_test_support.hpp"
#include "manual_phase_clock.hpp"
#include "scripted_server.hpp"

#include <benchd/loadgen/host_limits.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::sumOf;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

scenario::Workload cappedGetTime() {
  return workloadOf({subScenario(ExecutorKind::kConstantVus)},
                    scenario::RateCapSource::kScenarioRequestsPerSecond);
}

// Real time, generous bounds: the intervals are contiguous and cover the phase exactly (that
// holds whatever the timing); their lengths and counts are only checked to be about right,
// since a loaded machine may delay a harvest. The arrival and cap arithmetic behind the counts
// is tested exactly in engine_parts_test.cpp.
TEST(Snapshots, ArriveOncePerSecondAndCoverThePhaseRealTime) {
  const auto phase = runWorkload(cappedGetTime(), 5, 100, 3, targetOf(5), testOptions());
  ASSERT_EQ(phase.snapshots.size(), 3U);
  std::chrono::microseconds expected_start{0};
  for (std::uint32_t index = 0; index < phase.snapshots.size(); ++index) {
    const measurement::LoadSnapshot& snapshot = phase.snapshots[index];
    EXPECT_EQ(snapshot.index, index);
    EXPECT_EQ(snapshot.phase, measurement::PhaseKind::kTest);
    EXPECT_EQ(snapshot.start, expected_start) << "intervals are contiguous";
    EXPECT_GE(snapshot.duration, 500ms);
    EXPECT_LE(snapshot.duration, 3s);
    EXPECT_GT(snapshot.counters.requests_ok, 0U);
    EXPECT_LE(snapshot.counters.requests_ok, 200U) << "the 100/s cap holds within each interval";
    EXPECT_GT(snapshot.end_epoch_millis, 1'600'000'000'000);
    EXPECT_EQ(snapshot.generator_cores, 1U);
    expected_start += snapshot.duration;
  }
  EXPECT_EQ(phase.result.duration, expected_start);
  EXPECT_EQ(phase.result.snapshot_count, 3U);
}

// The manual-clock tests below drive the coordinator's time: each interval ends exactly on its
// boundary, whatever the machine's load. The event loops still run on the steady clock against
// a real server (see PhaseClock), so the test waits for states, never for a time: for the
// coordinator to wait on a boundary, for the server to have read some requests, for a snapshot.

/// The snapshots a phase delivered so far, for a test thread waiting on them.
class SnapshotLog {
 public:
  void add(const measurement::LoadSnapshot& snapshot) {
    {
      const std::lock_guard lock(mutex_);
      snapshots_.push_back(snapshot);
    }
    changed_.notify_all();
  }

  /// Waits (generously) until `count` snapshots arrived; false if they did not.
  bool awaitCount(std::size_t count) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, 30s, [this, count] { return snapshots_.size() >= count; });
  }

  [[nodiscard]] std::vector<measurement::LoadSnapshot> all() const {
    const std::lock_guard lock(mutex_);
    return snapshots_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<measurement::LoadSnapshot> snapshots_;
};

/// Waits (generously) until `server` has read at least `count` requests.
bool awaitRequestsReceived(const testing::ScriptedServer& server, std::uint64_t count) {
  const auto give_up = std::chrono::steady_clock::now() + 30s;
  while (server.requestsReceived() < count) {
    if (std::chrono::steady_clock::now() > give_up) {
      return false;
    }
    std::this_thread::yield();
  }
  return true;
}

/// One instant the coordinator must wait for, by the manual clock since `origin`.
struct Boundary {
  std::chrono::milliseconds at;
  /// Before the boundary is reached, the loops send at least a few requests, so that the
  /// interval it ends holds some; false at a plan's end, which the loops reach on real time.
  bool needs_requests = true;
};

/// Drives `clock` through `boundaries`: for each, checks that the coordinator waits for exactly
/// that instant, lets some requests through when asked, moves the time there and waits for the
/// snapshot it ends (the n-th boundary ends the n-th snapshot).
void driveBoundaries(testing::ManualPhaseClock& clock, PhaseClock::TimePoint origin,
                     const std::vector<Boundary>& boundaries, const testing::ScriptedServer& server,
                     SnapshotLog& log) {
  for (std::size_t index = 0; index < boundaries.size(); ++index) {
    const PhaseClock::TimePoint boundary = origin + boundaries[index].at;
    ASSERT_TRUE(clock.awaitWaiterFor(boundary))
        << "the coordinator never waited for " << boundaries[index].at.count() << " ms";
    if (boundaries[index].needs_requests) {
      ASSERT_TRUE(awaitRequestsReceived(server, server.requestsReceived() + 10));
    }
    clock.advanceTo(boundary);
    ASSERT_TRUE(log.awaitCount(index + 1))
        << "no snapshot after " << boundaries[index].at.count() << " ms";
  }
}

/// 200 "ok" for every request, 404 for paths ending in /missing.
testing::ScriptedServer answeringServer() {
  return testing::ScriptedServer([](std::uint64_t, std::uint64_t,
                                    std::string_view request) -> testing::ScriptedServer::Action {
    if (request.substr(0, request.find(" HTTP/1.1")).ends_with("/missing")) {
      return {.wait = 0ms,
              .reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
              .close_after = false};
    }
    return {.wait = 0ms, .reply = testing::ScriptedServer::okResponse(), .close_after = false};
  });
}

/// What a phase delivered: its result and every snapshot.
struct PhaseRun {
  measurement::PhaseResult result;
  std::vector<measurement::LoadSnapshot> snapshots;
};

/// Runs a three-second test phase of `plan` against `server` on its own thread while this one
/// drives `clock` through its boundaries at 1, 2 and 3 s since `origin`.
PhaseRun runThreeSecondTestPhase(LoadEngine& engine, const scenario::StagePlan& plan,
                                 const testing::ScriptedServer& server,
                                 testing::ManualPhaseClock& clock, PhaseClock::TimePoint origin) {
  SnapshotLog log;
  PhaseRun run;
  std::jthread phase([&] {
    run.result =
        engine.runPhase(plan, targetOf(0, server.port()), measurement::PhaseKind::kTest,
                        [&log](const measurement::LoadSnapshot& snapshot) { log.add(snapshot); });
  });
  driveBoundaries(clock, origin, {{1000ms}, {2000ms}, {3000ms, false}}, server, log);
  phase.join();
  run.snapshots = log.all();
  return run;
}

TEST(Snapshots, EndExactlyOnEachBoundaryOfAManualClock) {
  testing::ScriptedServer server = answeringServer();
  testing::ManualPhaseClock clock;
  const PhaseClock::TimePoint origin = clock.now();
  const scenario::StagePlan plan =
      scenario::planStages(cappedGetTime(), {4, 100, std::chrono::seconds(3)});
  LoadEngine engine(testOptions(), clock);
  const auto [result, snapshots] = runThreeSecondTestPhase(engine, plan, server, clock, origin);
  ASSERT_EQ(snapshots.size(), 3U);
  for (std::uint32_t index = 0; index < snapshots.size(); ++index) {
    const measurement::LoadSnapshot& snapshot = snapshots[index];
    EXPECT_EQ(snapshot.index, index);
    EXPECT_EQ(snapshot.phase, measurement::PhaseKind::kTest);
    EXPECT_EQ(snapshot.start, std::chrono::seconds(index));
    EXPECT_EQ(snapshot.duration, 1s) << index;
    EXPECT_DOUBLE_EQ(snapshot.intended_requests_per_second, 100.0) << index;
    EXPECT_GT(snapshot.counters.requests_ok, 0U) << index;
  }
  EXPECT_EQ(result.duration, 3s);
  EXPECT_EQ(result.snapshot_count, 3U);
  EXPECT_DOUBLE_EQ(result.intended_requests_per_second, 100.0);
  EXPECT_DOUBLE_EQ(result.achieved_requests_per_second,
                   static_cast<double>(result.totals.requestsCompleted()) / 3.0);
}

TEST(Snapshots, TotalsAreTheSumOfTheSnapshots) {
  testing::ScriptedServer server = answeringServer();
  auto sub = subScenario(ExecutorKind::kConstantVus);
  scenario::RequestTemplate missing = sub.requests[0];
  missing.path_template = "/{approach}/missing";
  sub.requests.push_back(missing);
  const scenario::StagePlan plan =
      scenario::planStages(workloadOf({sub}, scenario::RateCapSource::kScenarioRequestsPerSecond),
                           {6, 150, std::chrono::seconds(3)});
  testing::ManualPhaseClock clock;
  const PhaseClock::TimePoint origin = clock.now();
  LoadEngine engine(testOptions(10s, 2), clock);
  const auto [result, snapshots] = runThreeSecondTestPhase(engine, plan, server, clock, origin);
  ASSERT_EQ(snapshots.size(), 3U);
  measurement::LatencyHistogram merged;
  for (const measurement::LoadSnapshot& snapshot : snapshots) {
    EXPECT_GT(snapshot.counters.requestsCompleted(), 0U) << "every interval adds to the sum";
    merged.add(snapshot.latency);
  }
  EXPECT_EQ(result.totals, sumOf(snapshots));
  EXPECT_EQ(merged, result.latency);
  EXPECT_EQ(result.latency.count(), result.totals.requests_requested);
  EXPECT_EQ(result.totals.requestsCompleted(), server.requestsReceived())
      << "every request the server read was answered and counted once";
  EXPECT_GT(result.totals.errors[measurement::ErrorClass::kHttp4xx], 0U);
  EXPECT_GT(result.totals.requests_ok, 0U);
  EXPECT_EQ(result.totals.requests_ok + result.totals.errors[measurement::ErrorClass::kHttp4xx],
            result.totals.requestsCompleted());
}

TEST(Snapshots, WarmupIsRunFirstAndDiscarded) {
  testing::ScriptedServer server = answeringServer();
  scenario::ScenarioRow row;
  row.name = "warm";
  row.workload = "test-workload";
  row.connections = 4;
  row.requests_per_second = 100;
  row.warmup_seconds = 1;
  row.test_seconds = 2;
  testing::ManualPhaseClock clock;
  const PhaseClock::TimePoint origin = clock.now();
  LoadEngine engine(testOptions(), clock);
  SnapshotLog log;
  ScenarioResult result;
  std::jthread phases([&] {
    result = engine.runScenario(
        row, cappedGetTime(), targetOf(0, server.port()),
        [&log](const measurement::LoadSnapshot& snapshot) { log.add(snapshot); });
  });
  // The warm-up ends at 1 s; the test phase starts there (the manual time stands still between
  // the phases) and ends at 3 s.
  driveBoundaries(clock, origin, {{1000ms, false}, {2000ms}, {3000ms, false}}, server, log);
  phases.join();

  const std::vector<measurement::LoadSnapshot> snapshots = log.all();
  ASSERT_EQ(snapshots.size(), 3U);
  EXPECT_EQ(snapshots[0].phase, measurement::PhaseKind::kWarmup) << "the warm-up comes first";
  EXPECT_EQ(snapshots[0].start, 0s);
  EXPECT_EQ(snapshots[0].duration, 1s);
  ASSERT_TRUE(result.warmup.has_value());
  EXPECT_EQ(result.warmup->duration, 1s);
  EXPECT_GT(result.warmup->totals.requests_ok, 0U);
  EXPECT_EQ(result.warmup->totals, snapshots[0].counters);
  const std::vector<measurement::LoadSnapshot> test_snapshots(snapshots.begin() + 1,
                                                              snapshots.end());
  for (std::uint32_t index = 0; index < test_snapshots.size(); ++index) {
    EXPECT_EQ(test_snapshots[index].phase, measurement::PhaseKind::kTest);
    EXPECT_EQ(test_snapshots[index].index, index) << "the test phase counts from 0";
    EXPECT_EQ(test_snapshots[index].start, std::chrono::seconds(index))
        << "the test phase is timed from its own start";
    EXPECT_EQ(test_snapshots[index].duration, 1s);
  }
  ASSERT_TRUE(result.test.has_value());
  EXPECT_EQ(result.test->phase, measurement::PhaseKind::kTest);
  EXPECT_EQ(result.test->duration, 2s);
  EXPECT_EQ(result.test->snapshot_count, 2U);
  EXPECT_EQ(result.test->totals, sumOf(test_snapshots)) << "the warm-up is in no test total";
  EXPECT_GT(result.test->totals.requests_ok, 0U);
  EXPECT_EQ(result.warmup->totals.requestsCompleted() + result.test->totals.requestsCompleted(),
            server.requestsReceived());
  EXPECT_EQ(result.test->totals.connects, 4U) << "the test phase starts on fresh connections";
}

TEST(Snapshots, RequestStopEndsThePhaseEarly) {
  const scenario::StagePlan plan =
      scenario::planStages(cappedGetTime(), {4, 100, std::chrono::seconds(30)});
  LoadEngine engine(testOptions());
  std::jthread stopper([&engine] {
    std::this_thread::sleep_for(700ms);
    engine.requestStop();
  });
  const auto started = std::chrono::steady_clock::now();
  const measurement::PhaseResult result =
      engine.runPhase(plan, targetOf(0), measurement::PhaseKind::kTest, {});
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
  EXPECT_GT(result.totals.requests_ok, 20U);
  EXPECT_LT(result.duration, 3s);
  EXPECT_EQ(result.totals.interrupted_requests, 0U);
}

TEST(Snapshots, AThrowingCallbackStopsThePhaseAndPropagates) {
  const scenario::StagePlan plan =
      scenario::planStages(cappedGetTime(), {2, 50, std::chrono::seconds(30)});
  LoadEngine engine(testOptions());
  const auto started = std::chrono::steady_clock::now();
  EXPECT_THROW(engine.runPhase(plan, targetOf(0), measurement::PhaseKind::kTest,
                               [](const measurement::LoadSnapshot&) {
                                 throw std::runtime_error("store full");
                               }),
               std::runtime_error);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST(Snapshots, APlanBeyondTheHostsPortsFailsBeforeStarting) {
  const HostLimits limits = readHostLimits();
  if (!limits.ephemeral_ports || *limits.ephemeral_ports >= 60'000) {
    GTEST_SKIP() << "this host has a large ephemeral port range";
  }
  const scenario::StagePlan plan = scenario::planStages(
      workloadOf({subScenario(ExecutorKind::kConstantVus)}), {60'000, std::nullopt, 1s});
  LoadEngine engine(testOptions());
  try {
    engine.runPhase(plan, targetOf(0), measurement::PhaseKind::kTest, {});
    FAIL() << "expected a HostLimitError";
  } catch (const HostLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("net.ipv4.ip_local_port_range"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace benchd::loadgen
