#pragma once

#include <atomic>
#include <cstdint>

namespace benchd::asio_common {

/// Counters of one event loop. Written only by that loop's thread (relaxed atomics so the
/// host's stats call can read them without a lock); summed over loops when reported.
/// Cache-line aligned so loops never share a line.
struct alignas(64) LoopCounters {
  std::atomic<std::int64_t> requests_served{0};
  std::atomic<std::int64_t> requests_in_flight{0};
  std::atomic<std::int64_t> upstream_calls{0};
  std::atomic<std::int64_t> connections_open{0};
  std::atomic<std::int64_t> upstream_connections_open{0};
  /// The model's own unit of concurrency: live coroutines, live fibers, ... (named by the
  /// plugin when it reports).
  std::atomic<std::int64_t> live_tasks{0};

  /// Single-writer increment: a plain load and store, no read-modify-write.
  static void add(std::atomic<std::int64_t>& counter, std::int64_t delta) {
    counter.store(counter.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
  }
};

}  // namespace benchd::asio_common
