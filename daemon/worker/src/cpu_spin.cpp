#include "cpu_spin.hpp"

#include <algorithm>
#include <cmath>
#include <ctime>

namespace benchd::worker {
namespace {

/// One step of a dependent multiply-add chain: the next step needs this one's result, so the
/// loop's speed is the multiplier's latency, steady on any x86-64 or AArch64 core. The asm
/// barrier keeps the compiler from folding the chain into a closed form.
std::uint64_t runLoop(std::uint64_t iterations) noexcept {
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    asm volatile("" : "+r"(state));
  }
  return state;
}

double threadCpuNanoseconds() noexcept {
  timespec time{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time);
  return static_cast<double>(time.tv_sec) * 1e9 + static_cast<double>(time.tv_nsec);
}

/// Iterations per nanosecond of this thread's CPU: the fastest of five timed 1 ms loops. The
/// fastest, because what slows a loop (an interrupt's cache misses, a sibling's load) is not
/// the loop's own cost; it would slow the spin in a request as well, and be counted there.
double iterationsPerNanosecond() noexcept {
  constexpr std::uint64_t kProbe = 1U << 20U;
  std::uint64_t sink = runLoop(kProbe / 16);  // warm the core up
  double best = 0.0;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const double start = threadCpuNanoseconds();
    sink ^= runLoop(kProbe);
    const double elapsed = threadCpuNanoseconds() - start;
    if (elapsed > 0.0) {
      best = std::max(best, static_cast<double>(kProbe) / elapsed);
    }
  }
  asm volatile("" : : "r"(sink));
  return best > 0.0 ? best : 1.0;
}

}  // namespace

CpuSpin::CpuSpin(std::chrono::nanoseconds cost) : cost_(std::max(cost, cost.zero())) {
  if (cost_.count() > 0) {
    iterations_ = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(
               std::llround(static_cast<double>(cost_.count()) * iterationsPerNanosecond())));
  }
}

void CpuSpin::spend() const noexcept {
  if (iterations_ > 0) {
    const std::uint64_t state = runLoop(iterations_);
    asm volatile("" : : "r"(state));
  }
}

}  // namespace benchd::worker
