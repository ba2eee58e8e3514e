#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace benchd::loadgen {

/// What an open-model (arrival-rate) arrival does when no connection of its pool is free.
enum class ArrivalOverflow : std::uint8_t {
  /// k6's semantics: the arrival is dropped (counted in dropped_arrivals) and never sent.
  kDrop = 1,
  /// wrk2's semantics: the arrival waits for the next free connection and is sent late; its
  /// corrected latency includes the wait (counted in late_arrivals). Arrivals that wait longer
  /// than the request timeout, or are still waiting when the phase ends, are dropped.
  kWait,
};

/// max(1, hardware_concurrency - 1): leaves the server under test a core.
unsigned defaultLoadThreads();

/// Which part of a row's load one engine makes, when several engines (on several hosts) make it
/// together (docs/plans/multi-host.md §2, k6's execution segments): segment `index` of `count`.
/// The row's arrivals, VUs and rate-cap slots are numbered on one time line; segment i takes
/// those whose number is i modulo count, its event loops splitting them further the same way,
/// so the segments' processes add up to the row's exactly and never fire at the same instants.
/// 0 of 1 (the default) is the whole row.
struct LoadSegment {
  std::uint32_t index = 0;
  std::uint32_t count = 1;
};

/// How the load engine runs; the load itself comes from a scenario::StagePlan.
struct EngineOptions {
  /// Event-loop threads; each owns an equal share of every sub-scenario's connections.
  unsigned threads = defaultLoadThreads();
  /// From the first byte sent to the last byte received (k6's default: 60 s). A request that
  /// takes longer fails as request_timeout.
  std::chrono::milliseconds request_timeout{60'000};
  /// For establishing a connection; a slower connect fails as connect_timeout.
  std::chrono::milliseconds connect_timeout{10'000};
  /// Snapshot period; one second except in tests.
  std::chrono::milliseconds snapshot_interval{1'000};
  ArrivalOverflow arrival_overflow = ArrivalOverflow::kDrop;
  /// Request-count mode (h2load's -n): a test phase (never a warm-up) sends at most this many
  /// requests and ends as soon as all of them have ended, answered or failed, or at the plan's
  /// end if that comes first. Unset: the plan's duration alone ends the phase.
  std::optional<std::uint64_t> request_limit;
  /// Seeds think times and request-mix choices (each thread of each segment derives its own
  /// stream).
  std::uint64_t seed = 0x6265'6e63'6864'4c47ULL;
  /// The part of the row this engine makes; index below count, and no request_limit with more
  /// than one segment (a count cannot be split without the segments talking). The engine throws
  /// std::invalid_argument at its phase's setup otherwise.
  LoadSegment segment;
};

}  // namespace benchd::loadgen
