// Error classes as a real server (or no server) produces them.
#include "engine_test_support.hpp"
#include "worker_process.hpp"

#include <gtest/gtest.h>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

TEST(ErrorClasses, AClosedPortRefusesConnections) {
  auto sub = subScenario(ExecutorKind::kConstantVus);
  sub.think_time = scenario::ThinkTime{5ms, 5ms};
  const auto phase = runWorkload(workloadOf({sub}), 2, std::nullopt, 1,
                                 targetOf(0, testing::closedPort()), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GT(totals.errors[measurement::ErrorClass::kConnectionRefused], 10U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kConnectionRefused]);
  EXPECT_EQ(totals.requests_ok, 0U);
  EXPECT_EQ(totals.connects, 0U);
  // Failures faster than 10 ms never reached a server: errors, but not latency samples.
  EXPECT_EQ(totals.requests_requested, 0U);
  EXPECT_EQ(phase.result.latency.count(), 0U);
}

TEST(ErrorClasses, ASlowResponseTimesOut) {
  const auto phase = runWorkload(workloadOf({subScenario(ExecutorKind::kConstantVus)}), 2,
                                 std::nullopt, 2, targetOf(2000), testOptions(300ms));
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GE(totals.errors[measurement::ErrorClass::kRequestTimeout], 4U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kRequestTimeout]);
  EXPECT_EQ(totals.requests_ok, 0U);
  // Timeouts took >= 10 ms, so they count into the latency histogram, at about the timeout.
  EXPECT_EQ(phase.result.latency.count(), totals.errors.total());
  EXPECT_GE(phase.result.latency.min(), 300'000U);
  EXPECT_LE(phase.result.latency.max(), 900'000U);
  // Each timeout closes the connection; the next request reconnects.
  EXPECT_GE(totals.connects, totals.errors.total());
}

TEST(ErrorClasses, AnUnknownPathIsAnHttp4xx) {
  auto sub = subScenario(ExecutorKind::kConstantVus, "/{approach}/no-such-endpoint");
  sub.think_time = scenario::ThinkTime{10ms, 10ms};
  const auto phase = runWorkload(workloadOf({sub}), 2, std::nullopt, 1, targetOf(0), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GT(totals.errors[measurement::ErrorClass::kHttp4xx], 10U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kHttp4xx]);
  EXPECT_EQ(totals.requests_ok, 0U);
  EXPECT_EQ(totals.connects, 2U) << "a 404 keeps the connection";
}

TEST(ErrorClasses, AServerClosingEveryConnectionCausesReconnectsNotErrors) {
  const auto worker =
      benchd::testing::WorkerProcess::serve("callbacks-asio", {"--profile", "no-keep-alive"});
  auto sub = subScenario(ExecutorKind::kConstantVus);
  sub.think_time = scenario::ThinkTime{10ms, 10ms};
  const auto phase = runWorkload(workloadOf({sub}), 3, std::nullopt, 1, targetOf(0, worker->port()),
                                 testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_GT(totals.requests_ok, 30U);
  EXPECT_EQ(totals.errors.total(), 0U);
  EXPECT_GE(totals.connects + 3, totals.requests_ok);
}

}  // namespace
}  // namespace benchd::loadgen
