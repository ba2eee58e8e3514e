#pragma once

#include <benchd/loadgen/engine_options.hpp>
#include <benchd/scenario/phase_limits.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace benchd::cli {

/// `benchd load` arguments, checked. Defaults in comments.
struct LoadOptions {
  std::string url;                    ///< --url (required)
  std::string approach;               ///< --approach (required): {approach} in paths
  std::string workload = "get-time";  ///< --workload NAME | FILE.json
  std::uint32_t connections = 64;     ///< --connections
  bool http2 = false;                 ///< --http2: h2 over an https URL, h2c over http
  std::uint32_t streams = 1;          ///< --streams: concurrent streams per connection
  /// --duration; with --requests and no --duration, scenario::kMaxPhaseSeconds (the count ends
  /// it).
  std::uint32_t duration_seconds = 10;
  std::optional<std::uint64_t> requests;              ///< --requests: request-count mode
  std::uint32_t warmup_seconds = 0;                   ///< --warmup
  std::optional<std::uint32_t> rate;                  ///< --rate: the row's requestsPerSecond
  std::uint32_t delay_call_depth = 0;                 ///< --depth
  std::uint32_t delay_millis = 0;                     ///< --delay
  unsigned threads = loadgen::defaultLoadThreads();   ///< --threads
  std::chrono::milliseconds timeout{60'000};          ///< --timeout-ms
  std::chrono::milliseconds connect_timeout{10'000};  ///< --connect-timeout-ms
  loadgen::ArrivalOverflow arrival_overflow = loadgen::ArrivalOverflow::kDrop;  ///< --arrivals
  std::optional<std::string> scenarios_dir;                                     ///< --scenarios-dir
  bool json = false;                                                            ///< --json
  bool quiet = false;                                                           ///< --quiet
};

/// Parses the arguments after `load`. Throws UsageError with one line naming the option.
LoadOptions parseLoadOptions(std::span<const std::string_view> arguments);

/// The help text of `benchd load`.
std::string loadUsage();

}  // namespace benchd::cli
