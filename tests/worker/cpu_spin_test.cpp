// The instrument behind benchd.cpu_cost_ns: does one spend() cost what it says, on this thread's
// CPU clock? Bounds are generous: a shared VM's speed steps by about a fifth within seconds (see
// docs/metrics-and-ranking.md#how-many-rounds), so a loop calibrated in one step and spent in
// another costs that much more or less. They are still tight enough to catch the old spin on the
// clock, which cost 2.5 to 4 times a sub-microsecond cost.
#include "cpu_spin.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

namespace benchd::worker {
namespace {

using std::chrono::nanoseconds;

double threadCpuSeconds() {
  timespec time{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time);
  return static_cast<double>(time.tv_sec) + static_cast<double>(time.tv_nsec) * 1e-9;
}

/// Seconds of this thread's CPU that `calls` spends of `spin` take.
double cpuOf(const CpuSpin& spin, int calls) {
  const double start = threadCpuSeconds();
  for (int i = 0; i < calls; ++i) {
    spin.spend();
  }
  return threadCpuSeconds() - start;
}

TEST(CpuSpin, AZeroCostSpendsNothingAndNeedsNoCalibration) {
  const CpuSpin spin(nanoseconds(0));
  EXPECT_EQ(spin.iterations(), 0U);
  EXPECT_LT(cpuOf(spin, 1'000'000), 0.05);
  EXPECT_EQ(CpuSpin(nanoseconds(-5)).cost(), nanoseconds(0));
}

TEST(CpuSpin, ALongCostIsSpentToWithinAThird) {
  const CpuSpin spin(std::chrono::microseconds(200));
  const double spent = cpuOf(spin, 1000);  // 0.2 s of CPU
  EXPECT_GT(spent, 0.13);
  EXPECT_LT(spent, 0.30);
}

TEST(CpuSpin, ASubMicrosecondCostIsNotOvershotByClockReadings) {
  // 200,000 calls of 432 ns: 86 ms of CPU. A spin reading the thread's CPU clock until the cost
  // has passed spent 1.2 to 1.8 us a call here (260 to 360 ms): the readings are system calls.
  const CpuSpin spin(nanoseconds(432));
  EXPECT_GT(spin.iterations(), 0U);
  const double spent = cpuOf(spin, 200'000);
  EXPECT_GT(spent, 0.060);
  EXPECT_LT(spent, 0.130);
  // Twice the cost, twice the CPU: the cost scales with the nanoseconds asked for.
  const double doubled = cpuOf(CpuSpin(nanoseconds(864)), 200'000);
  EXPECT_GT(doubled / spent, 1.6);
  EXPECT_LT(doubled / spent, 2.5);
}

TEST(CpuSpin, OneSpinIsSharedByThreadsThatEachPayTheirOwnCost) {
  const CpuSpin spin(std::chrono::microseconds(50));
  std::vector<double> spent(2);
  std::vector<std::thread> threads;
  for (double& slot : spent) {
    threads.emplace_back([&spin, &slot] { slot = cpuOf(spin, 2000); });  // 0.1 s each
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const double seconds : spent) {
    EXPECT_GT(seconds, 0.065);
    EXPECT_LT(seconds, 0.16);
  }
}

}  // namespace
}  // namespace benchd::worker
