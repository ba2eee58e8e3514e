// benchd/limits.h is the one definition of the limits (CONTRACT.md section 10): it compiles
// alone as C++ (first include here) as it does as C99 and C11 (limits_header_as_c99.c,
// limits_header_as_c.c), C and C++ see the same values, and the C++ SDK's typed constants are
// exactly its macros.
#include "limits_values.h"

#include <benchd/limits.h>
#include <benchd/sdk/limits.hpp>
#include <benchd/sdk/request_deadline.hpp>

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace benchd::sdk {
namespace {

using std::chrono::milliseconds;

#define BENCHD_LIMIT_NAME(name) #name,
constexpr std::array<const char*, BENCHD_LIMIT_COUNT> kLimitNames = {
    BENCHD_LIMIT_MACROS(BENCHD_LIMIT_NAME)};
#undef BENCHD_LIMIT_NAME

std::array<long long, BENCHD_LIMIT_COUNT> valuesAsC99() {
  std::array<long long, BENCHD_LIMIT_COUNT> values{};
  benchd_limits_as_c99(values.data());
  return values;
}

std::array<long long, BENCHD_LIMIT_COUNT> valuesAsCpp() {
  std::array<long long, BENCHD_LIMIT_COUNT> values{};
#define BENCHD_LIMIT_FILL(name) values[name##_INDEX] = name;
  BENCHD_LIMIT_MACROS(BENCHD_LIMIT_FILL)
#undef BENCHD_LIMIT_FILL
  return values;
}

TEST(LimitsHeader, CAndCppSeeTheSameValues) {
  const auto as_c = valuesAsC99();
  const auto as_cpp = valuesAsCpp();
  for (std::size_t i = 0; i < BENCHD_LIMIT_COUNT; ++i)
    EXPECT_EQ(as_c[i], as_cpp[i]) << kLimitNames[i];
}

/// Every constant of limits.hpp (and kHeaderDeadline of request_deadline.hpp) is the value of
/// its macro as a C plugin compiles it, in the constant's unit.
TEST(LimitsHeader, TheSdkConstantsAreTheMacrosAsCSeesThem) {
  const auto c = valuesAsC99();
  EXPECT_EQ(kMaxDelayCallDepth, c[BENCHD_MAX_DELAY_CALL_DEPTH_INDEX]);
  EXPECT_EQ(kMaxDelayMillis, c[BENCHD_MAX_DELAY_MILLIS_INDEX]);
  EXPECT_EQ(static_cast<long long>(kMaxRequestBodyBytes), c[BENCHD_MAX_REQUEST_BODY_BYTES_INDEX]);
  EXPECT_EQ(static_cast<long long>(kMaxRequestHeaderBytes),
            c[BENCHD_MAX_REQUEST_HEADER_BYTES_INDEX]);
  EXPECT_EQ(static_cast<long long>(kMaxUnparsedRequestBytes),
            c[BENCHD_MAX_UNPARSED_REQUEST_BYTES_INDEX]);
  EXPECT_EQ(static_cast<long long>(kMinChunkLineBytes), c[BENCHD_MIN_CHUNK_LINE_BYTES_INDEX]);
  EXPECT_EQ(kIoTimeout, milliseconds(c[BENCHD_IO_TIMEOUT_MILLIS_INDEX]));
  EXPECT_EQ(kHeaderDeadline, milliseconds(c[BENCHD_HEADER_DEADLINE_MILLIS_INDEX]));
  EXPECT_EQ(kDiscardTimeout, milliseconds(c[BENCHD_DISCARD_TIMEOUT_MILLIS_INDEX]));
  EXPECT_EQ(kAcceptBackoff, milliseconds(c[BENCHD_ACCEPT_BACKOFF_MILLIS_INDEX]));
  EXPECT_EQ(kConnectTimeout, milliseconds(c[BENCHD_CONNECT_TIMEOUT_MILLIS_INDEX]));
  EXPECT_EQ(kUpstreamPoolCapacity, c[BENCHD_UPSTREAM_POOL_CAPACITY_INDEX]);
  EXPECT_EQ(kUpstreamResponseMargin, milliseconds(c[BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS_INDEX]));
  EXPECT_EQ(kUpstreamIdleTimeout, milliseconds(c[BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS_INDEX]));
  EXPECT_EQ(kUpstreamIdleSweepInterval,
            milliseconds(c[BENCHD_UPSTREAM_IDLE_SWEEP_INTERVAL_MILLIS_INDEX]));
}

/// The timeouts a plugin option may shorten accept the macro's value and nothing longer: the
/// ranges CONTRACT.md states in milliseconds ("1 to BENCHD_..._MILLIS") are the C values.
TEST(LimitsHeader, ShorteningOptionsAcceptUpToTheMacrosValue) {
  struct Option {
    std::string_view name;
    long long limit_millis;
    milliseconds (*read)(const ServerSettings&);
  };
  for (const Option& option : {
           Option{kHeaderDeadlineOption, BENCHD_HEADER_DEADLINE_MILLIS, &headerDeadline},
           Option{kUpstreamMarginOption, BENCHD_UPSTREAM_RESPONSE_MARGIN_MILLIS,
                  &upstreamResponseMargin},
           Option{kUpstreamIdleOption, BENCHD_UPSTREAM_IDLE_TIMEOUT_MILLIS, &upstreamIdleTimeout},
       }) {
    SCOPED_TRACE(option.name);
    ServerSettings at_limit;
    at_limit.options.emplace(option.name, std::to_string(option.limit_millis));
    EXPECT_EQ(option.read(at_limit), milliseconds(option.limit_millis));
    ServerSettings beyond;
    beyond.options.emplace(option.name, std::to_string(option.limit_millis + 1));
    EXPECT_THROW((void)option.read(beyond), PluginError);
  }
}

}  // namespace
}  // namespace benchd::sdk
