#pragma once

#include <atomic>
#include <cstdint>

namespace benchd::loadgen {

/// The request count of a count-limited test phase (h2load's -n, EngineOptions::request_limit),
/// shared by every event loop: a request may be sent only with a ticket, there are `limit`
/// tickets, and the phase is over once every ticketed request has ended (answered, failed or
/// interrupted). A ticket is never given back, so a failure counts as one of the N.
///
/// Thread-safe and lock-free.
class RequestBudget {
 public:
  explicit RequestBudget(std::uint64_t limit) noexcept : limit_(limit) {}

  /// Takes a ticket for one send; false once all `limit` are taken.
  bool tryTake() noexcept {
    std::uint64_t taken = taken_.load(std::memory_order_relaxed);
    while (taken < limit_) {
      if (taken_.compare_exchange_weak(taken, taken + 1, std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  /// A ticketed request ended.
  void ended() noexcept { ended_.fetch_add(1, std::memory_order_release); }

  /// Every ticket was used and its request has ended.
  [[nodiscard]] bool spent() const noexcept {
    return ended_.load(std::memory_order_acquire) >= limit_;
  }

 private:
  const std::uint64_t limit_;
  std::atomic<std::uint64_t> taken_{0};
  std::atomic<std::uint64_t> ended_{0};
};

}  // namespace benchd::loadgen
