// The shared limits form one coherent set: a nested call outwaits every delay it may forward,
// and the timeout follows the delay the nested target carries.
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>
#include <benchd/sdk/service_request.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <variant>

namespace benchd::sdk {
namespace {

using namespace std::chrono_literals;

ServiceRequest nestedRequest(int depth, std::int64_t delay_millis) {
  ServiceRequest request;
  request.operation = Operation::kEpochMillis;
  request.delay_call_depth = depth;
  request.delay_millis = delay_millis;
  return request;
}

TEST(Limits, NestedCallOutwaitsEveryAllowedDelay) {
  // The old set gave every nested call 60 s whatever the delay: a 61 s delay at depth 1 was a
  // certain 502 while the innermost request went on waiting.
  for (const std::int64_t delay : {std::int64_t{0}, std::int64_t{59'999}, std::int64_t{61'000},
                                   std::int64_t{600'000}, kMaxDelayMillis}) {
    const auto target = upstreamTarget("any", nestedRequest(1, delay));
    EXPECT_GE(upstreamResponseTimeoutFor(target),
              std::chrono::milliseconds(delay) + kUpstreamResponseMargin)
        << target;
    // What the callee will accept is what the caller waits for.
    EXPECT_TRUE(std::holds_alternative<ServiceRequest>(classifyRequest("GET", target, "any")))
        << target;
  }
}

TEST(Limits, TimeoutOfATargetWithoutAValidDelayIsTheLongest) {
  const auto longest = upstreamResponseTimeout(kMaxDelayMillis);
  EXPECT_EQ(upstreamResponseTimeoutFor("/any/epoch-millis?delayCallDepth=0"), longest);
  EXPECT_EQ(upstreamResponseTimeoutFor("/any/epoch-millis?delayInMillis=x"), longest);
  EXPECT_EQ(upstreamResponseTimeoutFor("/any/epoch-millis"), longest);
  EXPECT_EQ(upstreamResponseTimeoutFor("/any/epoch-millis?delayInMillis=250"),
            250ms + kUpstreamResponseMargin);
}

TEST(Limits, PooledConnectionsRetireBeforeTheServerClosesThem) {
  EXPECT_LT(kUpstreamIdleTimeout + kUpstreamIdleSweepInterval, kIoTimeout);
}

ServerSettings settingsWith(std::string_view option, std::string value) {
  ServerSettings settings;
  settings.options.emplace(std::string(option), std::move(value));
  return settings;
}

TEST(Limits, TimeoutOptionsShortenTheirLimitOnly) {
  const ServerSettings none;
  EXPECT_EQ(headerDeadline(none), kHeaderDeadline);
  EXPECT_EQ(upstreamResponseMargin(none), kUpstreamResponseMargin);
  EXPECT_EQ(upstreamIdleTimeout(none), kUpstreamIdleTimeout);
  EXPECT_EQ(upstreamResponseMargin(settingsWith(kUpstreamMarginOption, "1500")), 1500ms);
  EXPECT_EQ(upstreamIdleTimeout(settingsWith(kUpstreamIdleOption, "2000")), 2000ms);
  EXPECT_EQ(headerDeadline(settingsWith(kHeaderDeadlineOption, "1")), 1ms);
  // The limit itself is the longest value accepted: a longer one would reopen what it closes.
  EXPECT_EQ(upstreamResponseMargin(settingsWith(kUpstreamMarginOption, "60000")),
            kUpstreamResponseMargin);
  for (const char* bad : {"0", "-5", "60001", "1.5", "", "12ms", " 12"}) {
    try {
      (void)upstreamResponseMargin(settingsWith(kUpstreamMarginOption, bad));
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const PluginError& e) {
      EXPECT_EQ(e.status(), BENCHD_ERR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find("upstream_margin_ms"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("1 to 60000"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)upstreamIdleTimeout(settingsWith(kUpstreamIdleOption, "30001")), PluginError);
}

TEST(Limits, AShorterMarginShortensTheNestedCallsTimeoutByTheSameAmount) {
  const std::string target = "/any/epoch-millis?delayCallDepth=0&delayInMillis=2500";
  EXPECT_EQ(upstreamResponseTimeoutFor(target, 1000ms), 3500ms);
  EXPECT_EQ(upstreamResponseTimeoutFor(target), 2500ms + kUpstreamResponseMargin);
  // Still above the delay it forwards, whatever the margin.
  EXPECT_GT(upstreamResponseTimeoutFor(target, 1ms), 2500ms);
}

TEST(Limits, APoolSweepsAtLeastAsOftenAsItsIdleTimeout) {
  EXPECT_EQ(upstreamIdleSweepInterval(kUpstreamIdleTimeout), kUpstreamIdleSweepInterval);
  EXPECT_EQ(upstreamIdleSweepInterval(2000ms), 2000ms);
}

}  // namespace
}  // namespace benchd::sdk
