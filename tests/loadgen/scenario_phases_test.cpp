// LoadEngine::runScenario, the one warm-up -> test sequence every caller runs rows through: the
// phases in order, the hooks around each, and a hook that ends the row after the warm-up.
#include "engine_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

/// A row whose test phase a request limit ends early: a one-second warm-up (not counted), then
/// `kRequests` requests of the 30-second test phase.
constexpr std::uint64_t kRequests = 20;

scenario::ScenarioRow rowWithWarmup(std::uint32_t warmup_seconds) {
  scenario::ScenarioRow row;
  row.name = "phases";
  row.connections = 2;
  row.warmup_seconds = warmup_seconds;
  row.test_seconds = 30;
  return row;
}

LoadEngine countingEngine() {
  auto options = testOptions();
  options.request_limit = kRequests;
  return LoadEngine(options);
}

std::string nameOf(measurement::PhaseKind kind) {
  return std::string(measurement::phaseKindName(kind));
}

/// Records the hooks' calls as "before warmup 1s", "after warmup", ...
struct HookLog {
  std::vector<std::string> calls;
  bool continue_after_warmup = true;

  PhaseHooks hooks() {
    PhaseHooks hooks;
    hooks.before_phase = [this](measurement::PhaseKind kind, std::chrono::seconds duration) {
      calls.push_back("before " + nameOf(kind) + " " + std::to_string(duration.count()) + "s");
    };
    hooks.after_phase = [this](const measurement::PhaseResult& phase) {
      calls.push_back("after " + nameOf(phase.phase));
      return phase.phase != measurement::PhaseKind::kWarmup || continue_after_warmup;
    };
    return hooks;
  }
};

TEST(ScenarioPhases, TheWarmupComesFirstAndTheHooksSurroundEachPhase) {
  LoadEngine engine = countingEngine();
  HookLog log;
  std::vector<measurement::PhaseKind> snapshot_phases;
  const ScenarioResult result = engine.runScenario(
      rowWithWarmup(1), workloadOf({subScenario(ExecutorKind::kConstantVus)}), targetOf(0),
      [&](const measurement::LoadSnapshot& snapshot) { snapshot_phases.push_back(snapshot.phase); },
      log.hooks());
  EXPECT_EQ(log.calls, (std::vector<std::string>{"before warmup 1s", "after warmup",
                                                 "before test 30s", "after test"}));
  ASSERT_TRUE(result.warmup.has_value());
  ASSERT_TRUE(result.test.has_value());
  EXPECT_EQ(result.test->totals.requests_sent, kRequests);
  ASSERT_FALSE(snapshot_phases.empty());
  EXPECT_EQ(snapshot_phases.front(), measurement::PhaseKind::kWarmup);
  EXPECT_EQ(snapshot_phases.back(), measurement::PhaseKind::kTest);
  EXPECT_FALSE(engine.stopRequested());
}

TEST(ScenarioPhases, AHookCanEndTheRowAfterTheWarmup) {
  LoadEngine engine = countingEngine();
  HookLog log;
  log.continue_after_warmup = false;
  const ScenarioResult result =
      engine.runScenario(rowWithWarmup(1), workloadOf({subScenario(ExecutorKind::kConstantVus)}),
                         targetOf(0), {}, log.hooks());
  EXPECT_EQ(log.calls, (std::vector<std::string>{"before warmup 1s", "after warmup"}));
  EXPECT_TRUE(result.warmup.has_value());
  EXPECT_FALSE(result.test.has_value()) << "no test phase after a hook ended the row";
}

TEST(ScenarioPhases, ARowWithoutAWarmupRunsOnlyTheTest) {
  LoadEngine engine = countingEngine();
  HookLog log;
  const ScenarioResult result =
      engine.runScenario(rowWithWarmup(0), workloadOf({subScenario(ExecutorKind::kConstantVus)}),
                         targetOf(0), {}, log.hooks());
  EXPECT_EQ(log.calls, (std::vector<std::string>{"before test 30s", "after test"}));
  EXPECT_FALSE(result.warmup.has_value());
  ASSERT_TRUE(result.test.has_value());
  EXPECT_EQ(result.test->totals.requests_sent, kRequests);
}

// A row's requestCount (the scenario file's 12th column) is the test phase's count, on an
// engine without a request limit and in place of one it has; the warm-up stays timed.
TEST(ScenarioPhases, ARowsRequestCountEndsItsTestPhase) {
  scenario::ScenarioRow row = rowWithWarmup(1);
  row.request_count = 7;
  LoadEngine timed(testOptions());
  const ScenarioResult result = timed.runScenario(
      row, workloadOf({subScenario(ExecutorKind::kConstantVus)}), targetOf(0), {});
  ASSERT_TRUE(result.warmup.has_value());
  ASSERT_TRUE(result.test.has_value());
  EXPECT_EQ(result.test->totals.requests_sent, 7U);
  EXPECT_LT(result.test->duration, std::chrono::seconds(30)) << "the count did not end the phase";
  EXPECT_GT(result.warmup->totals.requests_sent, 7U) << "the warm-up was counted too";

  LoadEngine counting = countingEngine();  // its own limit, kRequests, yields to the row's
  const ScenarioResult counted = counting.runScenario(
      row, workloadOf({subScenario(ExecutorKind::kConstantVus)}), targetOf(0), {});
  ASSERT_TRUE(counted.test.has_value());
  EXPECT_EQ(counted.test->totals.requests_sent, 7U);
}

}  // namespace
}  // namespace benchd::loadgen
