#pragma once

#include <benchd/measurement/load_snapshot.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace benchd::measurement {

/// One second of a load generator as it travels between hosts (docs/plans/multi-host.md §2): a
/// LoadSnapshot whole, both histograms as their counters (never percentiles), so a coordinator
/// merges the seconds of several generators exactly as one generator recording every sample
/// would have, and a sequence number that counts every second a generator sends over a load
/// (both phases), so a lost or repeated second is seen.
struct NumberedSecond {
  std::uint64_t sequence = 0;
  LoadSnapshot second;
};

/// A second that cannot be read: what() names the field and the reason, e.g. "load second:
/// latency.layout: 'log-linear-us-12-26' is not this benchd's 'log-linear-us-11-26' (install
/// the same benchd version on every host)".
class LoadSecondCodecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// One JSON object, compact:
///   {"sequence", "phase" ("warmup"|"test"), "index", "startMicros", "durationMicros",
///    "endEpochMillis", "counters" {"requestsSent", "requestsOk", "errors" {<error class
///    name>: n, ...}, "requestsRequested", "bytesSent", "bytesReceived", "connects",
///    "droppedArrivals", "lateArrivals", "interruptedRequests"}, "achievedRequestsPerSecond",
///    "intendedRequestsPerSecond", "activeVus", "peakActiveVus", "generatorCpuPercent",
///    "generatorCores", "latency" and "uncorrectedLatency" {"layout", "count", "min", "max",
///    "sum", "clamped", "counters" [[index, count], ...]}}.
/// Doubles are written so that they read back to the same value.
[[nodiscard]] std::string encodeLoadSecond(const NumberedSecond& numbered);

/// Reads what encodeLoadSecond wrote, exactly: every member is required and checked (type,
/// range, the histograms through LatencyHistogram::restore, a layout other than kLayout
/// refused); members it does not know are ignored, so a newer sender may add some. Throws
/// LoadSecondCodecError.
[[nodiscard]] NumberedSecond decodeLoadSecond(std::string_view json);

}  // namespace benchd::measurement
