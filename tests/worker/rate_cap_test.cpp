// The capacity instrument behind benchd.max_rate on its own: slots 1/N s apart, shared by every
// thread, no slots banked while idle. Lower bounds on wall time only (a busy machine is slower,
// never faster), and a generous upper bound where a cap of 0 must not wait at all.
#include "rate_cap.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace benchd::worker {
namespace {

using Clock = std::chrono::steady_clock;

TEST(RateCap, NoCapNeverWaits) {
  RateCap cap(0);
  const auto start = Clock::now();
  for (int i = 0; i < 100'000; ++i) {
    cap.wait();
  }
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
}

TEST(RateCap, ThreadsShareOneScheduleOfSlots) {
  // 4 threads x 50 calls at 1,000 per second: 200 slots, 199 intervals of 1 ms after the first.
  RateCap cap(1'000);
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cap] {
      for (int i = 0; i < 50; ++i) {
        cap.wait();
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(199));
}

TEST(RateCap, AnIdleCapBanksNoBurst) {
  RateCap cap(100);  // 10 ms slots
  cap.wait();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Ten slots went by unused; the next call goes at once, the ten after it 10 ms apart still.
  const auto start = Clock::now();
  for (int i = 0; i < 11; ++i) {
    cap.wait();
  }
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(99));
}

}  // namespace
}  // namespace benchd::worker
