#include "allocation_counter.hpp"

#include <benchd/measurement/latency_histogram.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <random>
#include <vector>

namespace benchd::measurement {
namespace {

constexpr double kRelativeError = 0.001;  // three significant digits

/// The exact nearest-rank percentile of `sorted`, the rank computed in integers from a percentile
/// given in parts per million.
std::uint64_t exactPercentile(const std::vector<std::uint64_t>& sorted,
                              std::uint64_t parts_per_million) {
  const std::uint64_t count = sorted.size();
  std::uint64_t rank = (parts_per_million * count + 999'999) / 1'000'000;
  rank = std::clamp<std::uint64_t>(rank, 1, count);
  return sorted[rank - 1];
}

constexpr std::uint64_t kPercentilesPpm[] = {0,       1,       10'000,  100'000,  250'000,
                                             500'000, 750'000, 900'000, 950'000,  990'000,
                                             999'000, 999'900, 999'990, 1'000'000};

/// Records `samples` and checks every percentile against the exact answer, and the exact
/// count, min, max and mean.
void expectMatchesExactStatistics(std::vector<std::uint64_t> samples) {
  LatencyHistogram histogram;
  double sum = 0;
  for (const std::uint64_t sample : samples) {
    histogram.record(sample);
    sum += static_cast<double>(sample);
  }
  std::sort(samples.begin(), samples.end());
  EXPECT_EQ(histogram.count(), samples.size());
  EXPECT_EQ(histogram.min(), samples.front());
  EXPECT_EQ(histogram.max(), samples.back());
  EXPECT_NEAR(histogram.mean(), sum / static_cast<double>(samples.size()),
              1e-9 * sum / static_cast<double>(samples.size()));
  for (const std::uint64_t ppm : kPercentilesPpm) {
    const std::uint64_t exact = exactPercentile(samples, ppm);
    const std::uint64_t reported = histogram.valueAtPercentile(static_cast<double>(ppm) / 1e4);
    EXPECT_GE(reported, exact) << "percentile " << static_cast<double>(ppm) / 1e4;
    EXPECT_LE(static_cast<double>(reported - exact), static_cast<double>(exact) * kRelativeError)
        << "percentile " << static_cast<double>(ppm) / 1e4 << ": exact " << exact << ", reported "
        << reported;
  }
}

std::vector<std::uint64_t> uniformSamples(std::uint64_t seed, std::size_t count, std::uint64_t low,
                                          std::uint64_t high) {
  std::mt19937_64 random(seed);
  std::uniform_int_distribution<std::uint64_t> distribution(low, high);
  std::vector<std::uint64_t> samples(count);
  for (auto& sample : samples) {
    sample = distribution(random);
  }
  return samples;
}

/// Latency-like data: log-normal around ~100 ms with a long tail, from 1 µs up to 60 s.
std::vector<std::uint64_t> logNormalSamples(std::uint64_t seed, std::size_t count) {
  std::mt19937_64 random(seed);
  std::lognormal_distribution<double> distribution(std::log(100'000.0), 1.5);
  std::vector<std::uint64_t> samples(count);
  for (auto& sample : samples) {
    sample = static_cast<std::uint64_t>(std::clamp(distribution(random), 1.0, 60'000'000.0));
  }
  return samples;
}

TEST(LatencyHistogram, CoversOneMicrosecondToAtLeastSixtySeconds) {
  EXPECT_GE(LatencyHistogram::kHighestTrackableMicros, 60'000'000U);
  EXPECT_EQ(LatencyHistogram::kSignificantDigits, 3);
}

TEST(LatencyHistogram, EmptyHistogram) {
  const LatencyHistogram histogram;
  EXPECT_EQ(histogram.count(), 0U);
  EXPECT_EQ(histogram.min(), 0U);
  EXPECT_EQ(histogram.max(), 0U);
  EXPECT_EQ(histogram.mean(), 0.0);
  EXPECT_EQ(histogram.valueAtPercentile(50), 0U);
  EXPECT_EQ(histogram.clampedCount(), 0U);
  EXPECT_EQ(histogram.recordedBuckets().begin(), histogram.recordedBuckets().end());
}

TEST(LatencyHistogram, SmallValuesAreExact) {
  std::vector<std::uint64_t> samples;
  for (std::uint64_t value = 0; value < 2048; ++value) {
    samples.push_back(value);
  }
  LatencyHistogram histogram;
  for (const std::uint64_t value : samples) {
    histogram.record(value);
  }
  for (const std::uint64_t ppm : kPercentilesPpm) {
    EXPECT_EQ(histogram.valueAtPercentile(static_cast<double>(ppm) / 1e4),
              exactPercentile(samples, ppm));
  }
}

TEST(LatencyHistogram, UniformDataMatchesExactPercentiles) {
  expectMatchesExactStatistics(uniformSamples(1, 100'000, 1, 60'000'000));
  expectMatchesExactStatistics(uniformSamples(2, 10'000, 1, 5'000));
  expectMatchesExactStatistics(uniformSamples(3, 777, 90'000, 110'000));
}

TEST(LatencyHistogram, LatencyLikeDataMatchesExactPercentiles) {
  expectMatchesExactStatistics(logNormalSamples(4, 200'000));
  expectMatchesExactStatistics(logNormalSamples(5, 1'001));
}

TEST(LatencyHistogram, SingleValue) {
  LatencyHistogram histogram;
  histogram.record(123'456);
  EXPECT_EQ(histogram.min(), 123'456U);
  EXPECT_EQ(histogram.max(), 123'456U);
  EXPECT_EQ(histogram.mean(), 123'456.0);
  // The counter holding 123456 spans more than one value, but max() caps the answer.
  EXPECT_EQ(histogram.valueAtPercentile(0), 123'456U);
  EXPECT_EQ(histogram.valueAtPercentile(50), 123'456U);
  EXPECT_EQ(histogram.valueAtPercentile(100), 123'456U);
}

TEST(LatencyHistogram, PercentileArgumentIsClamped) {
  LatencyHistogram histogram;
  histogram.record(10);
  histogram.record(20);
  EXPECT_EQ(histogram.valueAtPercentile(-5), 10U);
  EXPECT_EQ(histogram.valueAtPercentile(std::nan("")), 10U);
  EXPECT_EQ(histogram.valueAtPercentile(50), 10U);
  EXPECT_EQ(histogram.valueAtPercentile(50.1), 20U);
  EXPECT_EQ(histogram.valueAtPercentile(250), 20U);
}

TEST(LatencyHistogram, ValuesAboveTheRangeAreClampedAndCounted) {
  LatencyHistogram histogram;
  histogram.record(1'000);
  histogram.record(LatencyHistogram::kHighestTrackableMicros);
  histogram.record(LatencyHistogram::kHighestTrackableMicros + 1);
  histogram.record(UINT64_MAX);
  EXPECT_EQ(histogram.count(), 4U);
  EXPECT_EQ(histogram.clampedCount(), 2U);
  EXPECT_EQ(histogram.max(), LatencyHistogram::kHighestTrackableMicros);
  EXPECT_EQ(histogram.valueAtPercentile(100), LatencyHistogram::kHighestTrackableMicros);
  EXPECT_EQ(histogram.valueAtPercentile(25), 1'000U);
  EXPECT_DOUBLE_EQ(
      histogram.mean(),
      (1'000.0 + 3.0 * static_cast<double>(LatencyHistogram::kHighestTrackableMicros)) / 4.0);
}

TEST(LatencyHistogram, SixtySecondTimeoutsAreNotClamped) {
  LatencyHistogram histogram;
  histogram.record(60'001'000);
  EXPECT_EQ(histogram.clampedCount(), 0U);
  EXPECT_EQ(histogram.max(), 60'001'000U);
}

TEST(LatencyHistogram, RecordWithCountAndDurations) {
  LatencyHistogram histogram;
  histogram.record(500, 3);
  histogram.record(700, 0);
  histogram.recordDuration(std::chrono::nanoseconds(1'499));
  histogram.recordDuration(std::chrono::nanoseconds(1'500));
  histogram.recordDuration(std::chrono::milliseconds(-5));
  EXPECT_EQ(histogram.count(), 6U);
  EXPECT_EQ(histogram.min(), 0U);
  EXPECT_EQ(histogram.max(), 500U);
  EXPECT_EQ(histogram.valueAtPercentile(1.0 / 6.0 * 100.0), 0U);
  EXPECT_EQ(histogram.valueAtPercentile(2.0 / 6.0 * 100.0), 1U);
  EXPECT_EQ(histogram.valueAtPercentile(3.0 / 6.0 * 100.0), 2U);
  EXPECT_EQ(histogram.valueAtPercentile(4.0 / 6.0 * 100.0), 500U);
}

TEST(LatencyHistogram, MergeEqualsRecordingEverythingInOne) {
  const auto first = logNormalSamples(6, 50'000);
  const auto second = uniformSamples(7, 30'000, 1, 70'000'000);
  LatencyHistogram all;
  LatencyHistogram part_one;
  LatencyHistogram part_two;
  for (const auto sample : first) {
    all.record(sample);
    part_one.record(sample);
  }
  for (const auto sample : second) {
    all.record(sample);
    part_two.record(sample);
  }
  LatencyHistogram merged;
  merged.add(part_one);
  merged.add(LatencyHistogram());
  merged.add(part_two);
  EXPECT_EQ(merged, all);
  EXPECT_EQ(merged.count(), 80'000U);
  EXPECT_GT(merged.clampedCount(), 0U);

  std::vector<std::uint64_t> combined = first;
  combined.insert(combined.end(), second.begin(), second.end());
  for (auto& sample : combined) {
    sample = std::min(sample, LatencyHistogram::kHighestTrackableMicros);
  }
  std::sort(combined.begin(), combined.end());
  for (const std::uint64_t ppm : kPercentilesPpm) {
    const std::uint64_t exact = exactPercentile(combined, ppm);
    const std::uint64_t reported = merged.valueAtPercentile(static_cast<double>(ppm) / 1e4);
    EXPECT_GE(reported, exact);
    EXPECT_LE(static_cast<double>(reported - exact), static_cast<double>(exact) * kRelativeError);
  }
}

TEST(LatencyHistogram, MergeKeepsTheSmallerMinimum) {
  LatencyHistogram low;
  low.record(5);
  LatencyHistogram high;
  high.record(50);
  high.add(low);
  EXPECT_EQ(high.min(), 5U);
  EXPECT_EQ(high.max(), 50U);
  LatencyHistogram empty;
  empty.add(high);
  EXPECT_EQ(empty.min(), 5U);
}

TEST(LatencyHistogram, ResetForgetsEverything) {
  LatencyHistogram histogram;
  for (const auto sample : logNormalSamples(8, 1000)) {
    histogram.record(sample);
  }
  histogram.record(UINT64_MAX);
  histogram.reset();
  EXPECT_EQ(histogram, LatencyHistogram());
  histogram.record(42);
  EXPECT_EQ(histogram.min(), 42U);
  EXPECT_EQ(histogram.max(), 42U);
  EXPECT_EQ(histogram.valueAtPercentile(99), 42U);
}

TEST(LatencyHistogram, RecordedBucketsCoverEverySampleInOrder) {
  const auto samples = logNormalSamples(9, 20'000);
  LatencyHistogram histogram;
  for (const auto sample : samples) {
    histogram.record(sample);
  }
  std::uint64_t total = 0;
  std::uint64_t previous_highest = 0;
  bool first = true;
  std::vector<HistogramBucket> buckets;
  for (const HistogramBucket bucket : histogram.recordedBuckets()) {
    EXPECT_GT(bucket.count, 0U);
    EXPECT_LE(bucket.lowest_micros, bucket.highest_micros);
    // Never wider than 1/1024 of its values: three significant digits.
    EXPECT_LE(bucket.highest_micros - bucket.lowest_micros,
              std::max<std::uint64_t>(bucket.lowest_micros / 1024, 0));
    if (!first) {
      EXPECT_GT(bucket.lowest_micros, previous_highest);
    }
    first = false;
    previous_highest = bucket.highest_micros;
    total += bucket.count;
    buckets.push_back(bucket);
  }
  EXPECT_EQ(total, samples.size());
  for (const auto sample : samples) {
    // The last bucket starting at or below the sample must reach it.
    const auto after = std::upper_bound(buckets.begin(), buckets.end(), sample,
                                        [](std::uint64_t value, const HistogramBucket& bucket) {
                                          return value < bucket.lowest_micros;
                                        });
    ASSERT_NE(after, buckets.begin()) << sample;
    EXPECT_LE(sample, std::prev(after)->highest_micros) << sample;
  }
}

TEST(LatencyHistogram, BucketEdges) {
  LatencyHistogram histogram;
  for (const std::uint64_t value : {0ULL, 1ULL, 2047ULL, 2048ULL, 2049ULL, 4095ULL, 4096ULL}) {
    histogram.record(value);
  }
  std::vector<HistogramBucket> buckets(histogram.recordedBuckets().begin(),
                                       histogram.recordedBuckets().end());
  const std::vector<HistogramBucket> expected = {{0, 0, 1},       {1, 1, 1},       {2047, 2047, 1},
                                                 {2048, 2049, 2}, {4094, 4095, 1}, {4096, 4099, 1}};
  EXPECT_EQ(buckets, expected);
  EXPECT_EQ(histogram.valueAtPercentile(100), 4096U);  // capped by max()
}

TEST(LatencyHistogram, RecordDoesNotAllocate) {
  LatencyHistogram histogram;
  LatencyHistogram other;
  other.record(7);
  const auto samples = uniformSamples(10, 10'000, 0, 100'000'000);
  const std::uint64_t before = testing::allocationsOnThisThread();
  for (const auto sample : samples) {
    histogram.record(sample);
  }
  histogram.recordDuration(std::chrono::seconds(90));
  histogram.add(other);
  (void)histogram.valueAtPercentile(99.9);
  histogram.reset();
  EXPECT_EQ(testing::allocationsOnThisThread(), before);
}

TEST(LatencyHistogram, CopiesAreIndependent) {
  LatencyHistogram original;
  original.record(10);
  LatencyHistogram copy = original;
  copy.record(20);
  EXPECT_EQ(original.count(), 1U);
  EXPECT_EQ(copy.count(), 2U);
}

}  // namespace
}  // namespace benchd::measurement
