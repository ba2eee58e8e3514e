#pragma once
// The units benchd presents numbers in, defined once. The store and the model keep what was
// measured (bytes, microseconds); what a person reads (the REST API, results.md, the charts,
// the console) is in MiB and seconds, converted with these and nowhere else.

#include <concepts>
#include <cstdint>

namespace benchd::common {

inline constexpr double kBytesPerMebibyte = 1024.0 * 1024.0;
inline constexpr double kMicrosPerSecond = 1e6;

/// `bytes` in MiB (exact for any count below 2^53 bytes).
template <std::integral Bytes>
[[nodiscard]] constexpr double mebibytes(Bytes bytes) {
  return static_cast<double>(bytes) / kBytesPerMebibyte;
}

/// `micros` in seconds.
[[nodiscard]] constexpr double secondsOfMicros(std::int64_t micros) {
  return static_cast<double>(micros) / kMicrosPerSecond;
}

}  // namespace benchd::common
