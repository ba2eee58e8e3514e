// What the load generator does with behaviour on the wire that the shipped plugins never show:
// interim (1xx) responses, a kept-alive connection closed before the answer, a connect that
// never completes. A ScriptedServer on loopback plays the server.
#include "engine_test_support.hpp"
#include "scripted_server.hpp"

#include <gtest/gtest.h>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;
using scenario::ExecutorKind;
using testing::runWorkload;
using testing::ScriptedServer;
using testing::subScenario;
using testing::targetOf;
using testing::testOptions;
using testing::workloadOf;

scenario::Workload oneRequestWorkload(std::string method, std::chrono::milliseconds think) {
  auto sub = subScenario(ExecutorKind::kConstantVus, "/test");
  sub.requests[0].method = std::move(method);
  if (sub.requests[0].method == "POST") {
    sub.requests[0].body = R"({"title":"x"})";
    sub.requests[0].headers = {{"Content-Type", "application/json"}};
  }
  if (think.count() > 0) {
    sub.think_time = scenario::ThinkTime{think, think};
  }
  return workloadOf({sub});
}

/// Answers the first request of each connection; closes the connection on the second, after
/// `wait`, without answering (a server timing out an idle keep-alive connection as the request
/// arrives).
ScriptedServer::Script closeOnSecondRequest(std::chrono::milliseconds wait) {
  return [wait](std::uint64_t, std::uint64_t request_on_connection, std::string_view) {
    ScriptedServer::Action action;
    if (request_on_connection == 0) {
      action.reply = ScriptedServer::okResponse();
    } else {
      action.wait = wait;
    }
    return action;
  };
}

TEST(Wire, InterimResponsesAreSkippedAndTheFinalOneCounts) {
  // Each answer: 100 Continue, 103 Early Hints, then the final 200, in one write.
  ScriptedServer server([](std::uint64_t, std::uint64_t, std::string_view) {
    ScriptedServer::Action action;
    action.reply =
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
        ScriptedServer::okResponse();
    return action;
  });
  const auto phase = runWorkload(oneRequestWorkload("GET", 5ms), 2, std::nullopt, 1,
                                 targetOf(0, server.port()), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_EQ(totals.errors.total(), 0U);
  EXPECT_GT(totals.requests_ok, 10U);
  // Every request the server read got exactly one final answer, on the same two connections.
  EXPECT_EQ(totals.requests_ok, server.requestsReceived());
  EXPECT_EQ(totals.connects, 2U);
}

TEST(Wire, AStaleConnectionIsRetriedOnceOnTheFirstAttemptsClock) {
  ScriptedServer server(closeOnSecondRequest(150ms));
  const auto phase = runWorkload(oneRequestWorkload("GET", 0ms), 1, std::nullopt, 1,
                                 targetOf(0, server.port()), testOptions());
  const measurement::PhaseResult& result = phase.result;
  // Requests alternate: a fresh connection answers; its reuse is dropped after 150 ms and the
  // GET is sent again on a new connection.
  EXPECT_EQ(result.totals.errors.total(), 0U);
  EXPECT_GE(result.totals.requests_ok, 3U);
  EXPECT_GT(server.requestsReceived(), result.totals.requests_sent) << "GETs were re-sent";
  // The re-sent request took the dropped attempt's 150 ms too.
  EXPECT_GE(result.latency.max(), 150'000U);
  EXPECT_LT(result.latency.min(), 100'000U);
}

TEST(Wire, APostIsNeverSentTwice) {
  ScriptedServer server(closeOnSecondRequest(20ms));
  const auto phase = runWorkload(oneRequestWorkload("POST", 0ms), 1, std::nullopt, 1,
                                 targetOf(0, server.port()), testOptions());
  const measurement::LoadCounters& totals = phase.result.totals;
  EXPECT_EQ(server.requestsReceived(), totals.requests_sent) << "no POST went out twice";
  // Every other POST was dropped by the server: a failure, counted.
  EXPECT_GE(totals.errors[measurement::ErrorClass::kConnectionReset], 2U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kConnectionReset]);
  EXPECT_GE(totals.requests_ok, 2U);
  EXPECT_EQ(totals.requests_ok + totals.errors.total(), totals.requests_sent);
}

TEST(Wire, AConnectThatNeverCompletesTimesOut) {
  const testing::UnansweredListener listener;
  auto options = testOptions();
  options.connect_timeout = 200ms;
  const auto phase = runWorkload(oneRequestWorkload("GET", 0ms), 1, std::nullopt, 1,
                                 targetOf(0, listener.port()), options);
  const measurement::LoadCounters& totals = phase.result.totals;
  // One VU, 200 ms per attempt (cut off by the sweep within 25 ms): 3 to 5 attempts in 1 s.
  EXPECT_GE(totals.errors[measurement::ErrorClass::kConnectTimeout], 2U);
  EXPECT_LE(totals.errors[measurement::ErrorClass::kConnectTimeout], 6U);
  EXPECT_EQ(totals.errors.total(), totals.errors[measurement::ErrorClass::kConnectTimeout]);
  EXPECT_EQ(totals.connects, 0U);
  EXPECT_EQ(totals.requests_ok, 0U);
  // A connect that failed sent nothing: no latency sample.
  EXPECT_EQ(phase.result.latency.count(), 0U);
}

}  // namespace
}  // namespace benchd::loadgen
