#pragma once

#include <chrono>
#include <cstdint>

namespace benchd::worker {

/// A known amount of CPU work, the instrument behind the worker's benchd.cpu_cost_ns: `spend()`
/// runs a fixed arithmetic loop whose length was measured against this thread's CPU clock once,
/// at construction, so that one call costs `cost` of CPU time.
///
/// Why a counted loop and not a spin on the clock: reading CLOCK_THREAD_CPUTIME_ID is a system
/// call (0.3 to 1 us on a VM, with the mitigations' entry cost), so a spin that reads it until the
/// cost has passed overshoots a sub-microsecond cost by one or two readings: 432 ns spent that
/// way cost 1.2 to 1.8 us per request. The loop reads no clock while it runs.
///
/// Thread-safety: construction calibrates on the constructing thread (about 6 ms of CPU for a
/// non-zero cost, nothing for zero); `spend()` is const and safe from any number of threads.
class CpuSpin {
 public:
  explicit CpuSpin(std::chrono::nanoseconds cost);

  /// Spends the cost on the calling thread; preemption does not shorten it (the loop's length is
  /// fixed work, not wall time).
  void spend() const noexcept;

  [[nodiscard]] std::chrono::nanoseconds cost() const noexcept { return cost_; }
  /// Loop iterations per call: 0 for a zero cost.
  [[nodiscard]] std::uint64_t iterations() const noexcept { return iterations_; }

 private:
  std::chrono::nanoseconds cost_;
  std::uint64_t iterations_ = 0;
};

}  // namespace benchd::worker
