// What one ProcessSampler::sample() costs against a process shaped like a loaded worker.
// A measurement, not a timing assertion: it prints the figures and asserts only exact counts.
// BENCHD_SAMPLING_COST_THREADS / _FDS override the shape (defaults 2000 / 10000).
#include "child_helper.hpp"

#include <benchd/sampling/process_sampler.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace benchd::sampling {
namespace {

unsigned fromEnvironment(const char* name, unsigned fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? static_cast<unsigned>(std::stoul(value)) : fallback;
}

double millisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

TEST(ProcessSamplerCost, OneSampleOfAManyThreadManyFdProcess) {
  const unsigned threads = fromEnvironment("BENCHD_SAMPLING_COST_THREADS", 2000);
  const unsigned fds = fromEnvironment("BENCHD_SAMPLING_COST_FDS", 10000);
  const testing::LoadHelper helper(threads, fds);
  ProcessSampler sampler(helper.pid());

  constexpr int kSamples = 10;
  std::vector<double> millis;
  for (int i = 0; i < kSamples; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const ProcessSample sample = sampler.sample();
    millis.push_back(millisSince(start));
    ASSERT_TRUE(sample.present);
    EXPECT_EQ(sample.threads, threads + 1U + testing::kRuntimeThreads);
    EXPECT_EQ(sample.open_fds, helper.openFds());
  }
  std::sort(millis.begin(), millis.end());

  // For comparison: listing the fd directory, what counting fds costs before Linux 6.2.
  const auto list_start = std::chrono::steady_clock::now();
  std::uint64_t listed = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(helper.pid()) + "/fd")) {
    ++listed;
  }
  const double list_millis = millisSince(list_start);
  EXPECT_EQ(listed, helper.openFds());

  std::cout << "ProcessSampler::sample() at " << threads + 1 << " threads, " << helper.openFds()
            << " fds: min " << millis.front() << " ms, median " << millis[kSamples / 2]
            << " ms, max " << millis.back() << " ms over " << kSamples
            << " samples; listing the fd directory once: " << list_millis << " ms\n";
  ::testing::Test::RecordProperty("median_sample_millis", std::to_string(millis[kSamples / 2]));
}

}  // namespace
}  // namespace benchd::sampling
