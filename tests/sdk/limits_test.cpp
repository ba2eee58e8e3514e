// The shared limits form one coherent set: a nested call outwaits every delay it may forward,
// and the timeout follows the delay the nested target carries.
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/service_request.hpp>

#include <gtest/gtest.h>

#include <chrono>
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

}  // namespace
}  // namespace benchd::sdk
