#pragma once
// How many upstream connections a worker's nested-call client may have open at once
// (kUpstreamPoolCapacity, the original's pool size), counted by every client the same way:
// a place is reserved before the connection is made, so racing callers never exceed the
// capacity together, and given back when the connection is closed.

#include <benchd/sdk/limits.hpp>

#include <atomic>
#include <cstdint>

namespace benchd::sdk {

/// Thread-safe: any thread reserves and releases.
class ConnectionBudget {
 public:
  explicit ConnectionBudget(std::int64_t capacity = kUpstreamPoolCapacity) noexcept
      : capacity_(capacity) {}

  /// Takes a place; false (and nothing taken) when all are taken.
  [[nodiscard]] bool tryReserve() noexcept {
    if (open_.fetch_add(1, std::memory_order_relaxed) >= capacity_) {
      open_.fetch_sub(1, std::memory_order_relaxed);
      return false;
    }
    return true;
  }

  /// Gives back a place tryReserve() took.
  void release() noexcept { open_.fetch_sub(1, std::memory_order_relaxed); }

  /// Places taken now: the connections open (a counter, not a synchronisation point).
  [[nodiscard]] std::int64_t inUse() const noexcept {
    return open_.load(std::memory_order_relaxed);
  }

 private:
  const std::int64_t capacity_;
  std::atomic<std::int64_t> open_{0};
};

}  // namespace benchd::sdk
