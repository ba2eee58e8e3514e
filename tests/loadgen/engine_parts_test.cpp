// The engine's pure parts: arrival time line, rate-cap schedule, request rendering, error
// classes, URL parsing, the saturation judge and the host-limit check.
#include "arrival_timeline.hpp"
#include "prepared_request.hpp"
#include "token_schedule.hpp"

#include <benchd/loadgen/host_limits.hpp>
#include <benchd/loadgen/request_target.hpp>
#include <benchd/loadgen/saturation.hpp>
#include <benchd/measurement/error_class.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace benchd::loadgen {
namespace {

using namespace std::chrono_literals;

scenario::SubScenarioPlan ratePlan(double start, std::vector<scenario::PlannedStage> stages) {
  scenario::SubScenarioPlan plan;
  plan.definition.executor = scenario::ExecutorKind::kRampingArrivalRate;
  plan.start_target = start;
  plan.stages = std::move(stages);
  return plan;
}

TEST(ArrivalTimeline, AConstantRatePutsOneArrivalInTheMiddleOfEachSlot) {
  const ArrivalTimeline timeline(ratePlan(100, {{2000ms, 100}}), 2000ms);
  EXPECT_EQ(timeline.arrivalCount(), 200U);
  EXPECT_EQ(timeline.timeOf(0), 5ms);
  EXPECT_EQ(timeline.timeOf(1), 15ms);
  EXPECT_EQ(timeline.timeOf(150), 1505ms);
  EXPECT_EQ(timeline.timeOf(199), 1995ms);
  EXPECT_EQ(timeline.arrivalsBefore(0ms), 0U);
  EXPECT_EQ(timeline.arrivalsBefore(4ms), 0U);
  EXPECT_EQ(timeline.arrivalsBefore(6ms), 1U);
  EXPECT_EQ(timeline.arrivalsBefore(1000ms), 100U);
  EXPECT_EQ(timeline.arrivalsBefore(5000ms), 200U);
}

TEST(ArrivalTimeline, ALinearRampFollowsTheIntegralOfTheRate) {
  // Rate 0 -> 100/s over 2 s: N(t) = 25 t^2, 100 arrivals, arrival k at sqrt((k + 0.5) / 25).
  const ArrivalTimeline timeline(ratePlan(0, {{2000ms, 100}}), 2000ms);
  EXPECT_EQ(timeline.arrivalCount(), 100U);
  EXPECT_EQ(timeline.arrivalsBefore(1000ms), 25U);
  for (const std::uint64_t index : {0U, 24U, 63U, 99U}) {
    EXPECT_NEAR(std::chrono::duration<double>(timeline.timeOf(index)).count(),
                std::sqrt((static_cast<double>(index) + 0.5) / 25.0), 1e-6)
        << index;
  }
  for (std::uint64_t index = 1; index < timeline.arrivalCount(); ++index) {
    EXPECT_GT(timeline.timeOf(index), timeline.timeOf(index - 1));
  }
}

TEST(ArrivalTimeline, StagesChainAndAZeroRateSendsNothing) {
  // 1 s ramp 0 -> 10/s (5 arrivals), 1 s at 0, 1 s at 10/s (10 arrivals).
  const ArrivalTimeline timeline(
      ratePlan(0, {{1000ms, 10}, {0ms, 0}, {1000ms, 0}, {0ms, 10}, {1000ms, 10}}), 3000ms);
  EXPECT_EQ(timeline.arrivalCount(), 15U);
  EXPECT_EQ(timeline.arrivalsBefore(1000ms), 5U);
  EXPECT_EQ(timeline.arrivalsBefore(1999ms), 5U);
  EXPECT_LT(timeline.timeOf(4), 1000ms);
  EXPECT_EQ(timeline.timeOf(5), 2050ms);
  EXPECT_EQ(timeline.timeOf(14), 2950ms);
}

TEST(TokenSchedule, SlotsAreOneIntervalApartAndNeverInThePast) {
  TokenSchedule schedule(100.0);
  EXPECT_EQ(schedule.interval(), 10ms);
  EXPECT_EQ(schedule.acquire(0ns), 0ns);
  EXPECT_EQ(schedule.acquire(0ns), 10ms);
  EXPECT_EQ(schedule.acquire(1ms), 20ms);
  // Far behind: no burst of missed slots, the next one is now.
  EXPECT_EQ(schedule.acquire(5s), 5s);
  EXPECT_EQ(schedule.acquire(5s), 5s + 10ms);
}

// The rate-cap logic on a manual clock (exact, unlike a run on the wall clock): 20 closed VUs
// with 20 ms requests want 1000 per second; the shared schedule lets 200 per second through,
// in turns, whatever order the VUs come in.
TEST(TokenSchedule, TwentyVusOnAManualClockSendExactlyTheCappedRate) {
  TokenSchedule schedule(200.0);
  constexpr auto kRequest = 20ms;
  constexpr auto kPhase = 3s;
  // When each VU is ready for its next request (manual time since the phase start).
  std::vector<std::chrono::nanoseconds> ready(20, 0ns);
  std::vector<std::chrono::nanoseconds> sends;
  for (;;) {
    // The VU ready first takes the next slot (the event loop runs handlers in time order).
    const auto vu = std::min_element(ready.begin(), ready.end());
    const std::chrono::nanoseconds slot = schedule.acquire(*vu);
    if (slot >= kPhase) {
      break;
    }
    EXPECT_GE(slot, *vu) << "a slot is never in the past";
    sends.push_back(slot);
    *vu = slot + kRequest;
  }
  EXPECT_EQ(sends.size(), 600U);
  for (std::size_t index = 1; index < sends.size(); ++index) {
    EXPECT_EQ(sends[index] - sends[index - 1], 5ms) << index;
  }
}

// The arrival schedule on a manual clock: an open group polled every 10 ms tick sends each
// second's arrivals in that second, and the intended rate per interval is exact.
TEST(ArrivalTimeline, EachSecondOfAConstantRateHoldsItsArrivals) {
  const ArrivalTimeline timeline(ratePlan(100, {{3000ms, 100}}), 3000ms);
  std::uint64_t sent = 0;
  std::vector<std::uint64_t> per_second(3, 0);
  for (auto now = 0ms; now <= 3000ms; now += 10ms) {
    const std::uint64_t due = timeline.arrivalsBefore(now);
    for (; sent < due; ++sent) {
      const auto when = timeline.timeOf(sent);
      ASSERT_LE(when, now);
      ASSERT_GT(when, now - 10ms) << "sent on the first tick after it was due";
      ++per_second[static_cast<std::size_t>(when / 1s)];
    }
  }
  EXPECT_EQ(per_second, (std::vector<std::uint64_t>{100, 100, 100}));
  EXPECT_EQ(timeline.arrivalsBefore(2000ms) - timeline.arrivalsBefore(1000ms), 100U);
}

TEST(RequestMix, RendersEachTemplateOnceForTheTarget) {
  scenario::RequestTemplate get;
  get.method = "GET";
  get.weight = 3;
  get.path_template =
      "/{approach}/epoch-millis?delayCallDepth={delayCallDepth}&delayInMillis={delayInMillis}";
  scenario::RequestTemplate post;
  post.method = "POST";
  post.weight = 1;
  post.path_template = "/{approach}/movies";
  post.headers = {{"Content-Type", "application/json"}};
  post.body = R"([{"title":"x"}])";
  RequestTarget target{"127.0.0.1", 8080, "coroutines-asio", 1, 100};
  const RequestMix mix({get, post}, target);
  ASSERT_EQ(mix.requests().size(), 2U);
  const std::string& get_bytes = mix.requests()[0].bytes;
  EXPECT_EQ(
      get_bytes.rfind(
          "GET /coroutines-asio/epoch-millis?delayCallDepth=1&delayInMillis=100 HTTP/1.1\r\n", 0),
      0U)
      << get_bytes;
  EXPECT_NE(get_bytes.find("Host: 127.0.0.1:8080\r\n"), std::string::npos);
  EXPECT_TRUE(get_bytes.ends_with("\r\n\r\n"));
  const std::string& post_bytes = mix.requests()[1].bytes;
  EXPECT_NE(post_bytes.find("Content-Length: 15\r\n"), std::string::npos) << post_bytes;
  EXPECT_NE(post_bytes.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_TRUE(post_bytes.ends_with(post.body));
  EXPECT_EQ(&mix.pick(0.0), &mix.requests()[0]);
  EXPECT_EQ(&mix.pick(0.74), &mix.requests()[0]);
  EXPECT_EQ(&mix.pick(0.76), &mix.requests()[1]);
  EXPECT_EQ(&mix.pick(0.999999), &mix.requests()[1]);
}

TEST(ErrorClass, NamesRoundTripAndStatusesClassify) {
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    EXPECT_EQ(measurement::errorClassFromName(measurement::errorClassName(error_class)),
              error_class);
  }
  EXPECT_EQ(measurement::errorClassName(measurement::ErrorClass::kConnectionRefused),
            "connection_refused");
  EXPECT_EQ(measurement::errorClassName(measurement::ErrorClass::kHttp5xx), "http_5xx");
  EXPECT_EQ(measurement::errorClassOfStatus(200), std::nullopt);
  EXPECT_EQ(measurement::errorClassOfStatus(204), std::nullopt);
  EXPECT_EQ(measurement::errorClassOfStatus(404), measurement::ErrorClass::kHttp4xx);
  EXPECT_EQ(measurement::errorClassOfStatus(503), measurement::ErrorClass::kHttp5xx);
  EXPECT_EQ(measurement::errorClassOfStatus(302), measurement::ErrorClass::kOther);
}

TEST(HttpUrl, ParsesHostAndPort) {
  EXPECT_EQ(parseHttpUrl("http://127.0.0.1:8080").host, "127.0.0.1");
  EXPECT_EQ(parseHttpUrl("http://127.0.0.1:8080/").port, 8080);
  EXPECT_EQ(parseHttpUrl("http://localhost").port, 80);
  EXPECT_EQ(parseHttpUrl("http://[::1]:9000").host, "::1");
  EXPECT_FALSE(parseHttpUrl("http://127.0.0.1").tls);
  EXPECT_TRUE(parseHttpUrl("https://127.0.0.1").tls);
  EXPECT_EQ(parseHttpUrl("https://127.0.0.1").port, 443);
  EXPECT_EQ(parseHttpUrl("https://[::1]:8443/").port, 8443);
  EXPECT_THROW(parseHttpUrl("ftp://127.0.0.1"), std::invalid_argument);
  EXPECT_THROW(parseHttpUrl("https://127.0.0.1/path"), std::invalid_argument);
  EXPECT_THROW(parseHttpUrl("http://127.0.0.1:80/path"), std::invalid_argument);
  EXPECT_THROW(parseHttpUrl("http://127.0.0.1:0"), std::invalid_argument);
  EXPECT_THROW(parseHttpUrl("http://127.0.0.1:x"), std::invalid_argument);
  EXPECT_THROW(parseHttpUrl("http://:80"), std::invalid_argument);
}

TEST(Saturation, AnIntervalNeedsHighCpuAndAShortfall) {
  EXPECT_TRUE(isSaturatedInterval({900, 1000, 95, 1}));
  EXPECT_FALSE(isSaturatedInterval({960, 1000, 99, 1})) << "kept up";
  EXPECT_FALSE(isSaturatedInterval({500, 1000, 50, 1})) << "the server was slow, not us";
  EXPECT_FALSE(isSaturatedInterval({900, 1000, 150, 2})) << "two cores: 150 % is 75 %";
  EXPECT_TRUE(isSaturatedInterval({900, 1000, 185, 2}));
  EXPECT_TRUE(isSaturatedInterval({50'000, 0, 97, 1})) << "closed loop at full CPU";
}

TEST(Saturation, APhaseIsFlaggedWhenATenthOfItsIntervalsAre) {
  SaturationJudge calm;
  for (int second = 0; second < 20; ++second) {
    calm.add({second == 0 ? 500.0 : 1000.0, 1000, second == 0 ? 99.0 : 40.0, 1});
  }
  EXPECT_FALSE(calm.saturated()) << "1 of 20";
  EXPECT_TRUE(calm.reason().empty());
  SaturationJudge busy;
  for (int second = 0; second < 10; ++second) {
    busy.add({second < 3 ? 800.0 : 1000.0, 1000, second < 3 ? 98.0 : 60.0, 1});
  }
  EXPECT_TRUE(busy.saturated());
  EXPECT_NE(busy.reason().find("3 of 10 intervals"), std::string::npos) << busy.reason();
  EXPECT_NE(busy.reason().find("80 %"), std::string::npos) << busy.reason();
}

TEST(HostLimits, ProblemsNameTheLimitAndTheValueToSet) {
  HostLimits limits;
  limits.open_files_soft = 1024;
  limits.open_files_hard = 4096;
  limits.ephemeral_ports = 28232;
  limits.ephemeral_port_range = "32768 60999";
  limits.somaxconn = 4096;
  const HostLimitCheck check = checkHostLimits(20'000, 1, limits);
  ASSERT_EQ(check.problems.size(), 2U);
  EXPECT_NE(check.problems[0].find("RLIMIT_NOFILE"), std::string::npos) << check.problems[0];
  // 20,000 connections at depth 1: the worker holds 20,000 inbound plus 2 x 20,000 for the
  // nested calls.
  EXPECT_NE(check.problems[0].find("60256 file descriptors in the worker"), std::string::npos)
      << check.problems[0];
  EXPECT_NE(check.problems[0].find("limits.conf"), std::string::npos) << check.problems[0];
  EXPECT_NE(check.problems[1].find("net.ipv4.ip_local_port_range"), std::string::npos);
  EXPECT_NE(check.problems[1].find("40000 ephemeral ports"), std::string::npos)
      << check.problems[1];
  EXPECT_NE(check.problems[1].find("1024 65535"), std::string::npos);
  ASSERT_EQ(check.warnings.size(), 1U);
  EXPECT_NE(check.warnings[0].find("net.core.somaxconn"), std::string::npos);
  EXPECT_NE(check.warnings[0].find("65535"), std::string::npos);

  const HostLimitError error(check.problems);
  EXPECT_NE(std::string(error.what()).find("RLIMIT_NOFILE"), std::string::npos);
}

TEST(HostLimits, EachProcessIsCheckedForWhatItHolds) {
  HostLimits limits;
  limits.open_files_soft = 20'000;
  limits.open_files_hard = 20'000;
  // Without nested calls, 10,000 connections need about 10,256 descriptors in each process:
  // within a 20,000 limit (the old check asked for two per connection, 20,256).
  EXPECT_TRUE(checkHostLimits(10'000, 0, limits).problems.empty());
  const HostLimitCheck generator_bound = checkHostLimits(19'900, 0, limits);
  ASSERT_EQ(generator_bound.problems.size(), 1U);
  EXPECT_NE(generator_bound.problems[0].find("20156 file descriptors in the load generator"),
            std::string::npos)
      << generator_bound.problems[0];
  // With one nested level the worker needs three per connection.
  const HostLimitCheck nested = checkHostLimits(10'000, 1, limits);
  ASSERT_EQ(nested.problems.size(), 1U);
  EXPECT_NE(nested.problems[0].find("30256 file descriptors in the worker"), std::string::npos)
      << nested.problems[0];
}

TEST(HostLimits, ASmallRunPassesAndTheSoftLimitIsRaised) {
  const std::uint64_t raised = raiseOpenFileLimit();
  const HostLimits limits = readHostLimits();
  EXPECT_EQ(limits.open_files_soft, raised);
  EXPECT_EQ(limits.open_files_soft, limits.open_files_hard);
  const HostLimitCheck check = checkHostLimits(10, 0, limits);
  EXPECT_TRUE(check.problems.empty());
  EXPECT_TRUE(check.warnings.empty());
}

}  // namespace
}  // namespace benchd::loadgen
