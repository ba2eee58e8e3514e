#include <benchd/measurement/latency_histogram.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace benchd::measurement {
namespace {

// Counter layout. Counter index i stands for the values v with
//   i = (k << kHalfBits) + (v >> k),   k = max(0, bit_width(v) - kSubBucketBits),
// i.e. values below 2^kSubBucketBits map to themselves, and each further power of two adds
// 2^kHalfBits counters of width 2^k. The mapping is monotonic and gap-free.
constexpr int kSubBucketBits = 11;  // 2048 values at full resolution: 3 significant digits
constexpr int kHalfBits = kSubBucketBits - 1;
constexpr std::uint64_t kFullResolutionLimit = std::uint64_t{1} << kSubBucketBits;
constexpr int kHighestExponent =
    std::bit_width(LatencyHistogram::kHighestTrackableMicros) - kSubBucketBits;
constexpr std::size_t kCounters = (static_cast<std::size_t>(kHighestExponent) + 2) << kHalfBits;

constexpr int exponentOf(std::uint64_t value) {
  return std::max(0, static_cast<int>(std::bit_width(value)) - kSubBucketBits);
}

constexpr std::size_t indexOf(std::uint64_t value) {
  const int exponent = exponentOf(value);
  return (static_cast<std::size_t>(exponent) << kHalfBits) +
         static_cast<std::size_t>(value >> exponent);
}

constexpr int exponentOfIndex(std::size_t index) {
  return index < kFullResolutionLimit ? 0 : static_cast<int>(index >> kHalfBits) - 1;
}

constexpr std::uint64_t lowestValueOfIndex(std::size_t index) {
  const int exponent = exponentOfIndex(index);
  const std::size_t sub_index = index - (static_cast<std::size_t>(exponent) << kHalfBits);
  return static_cast<std::uint64_t>(sub_index) << exponent;
}

constexpr std::uint64_t highestValueOfIndex(std::size_t index) {
  return lowestValueOfIndex(index) + (std::uint64_t{1} << exponentOfIndex(index)) - 1;
}

static_assert(indexOf(LatencyHistogram::kHighestTrackableMicros) == kCounters - 1);
// kLayout names these two numbers; change it with them.
static_assert(kSubBucketBits == 11 &&
                  std::bit_width(LatencyHistogram::kHighestTrackableMicros) == 26,
              "the layout changed: give LatencyHistogram::kLayout a new name");
static_assert(indexOf(kFullResolutionLimit - 1) == kFullResolutionLimit - 1);
static_assert(indexOf(kFullResolutionLimit) == kFullResolutionLimit);
static_assert(lowestValueOfIndex(indexOf(4097)) == 4096 &&
              highestValueOfIndex(indexOf(4097)) == 4099);
static_assert(LatencyHistogram::kHighestTrackableMicros >= 60'000'000, "must cover 60 s");

}  // namespace

const std::size_t LatencyHistogram::kCounterCount = kCounters;

LatencyHistogram::LatencyHistogram() : counts_(kCounters, 0) {}

void LatencyHistogram::record(std::uint64_t micros, std::uint64_t count) noexcept {
  if (count == 0) {
    return;
  }
  if (micros > kHighestTrackableMicros) {
    micros = kHighestTrackableMicros;
    clamped_count_ += count;
  }
  counts_[indexOf(micros)] += count;
  min_ = total_count_ == 0 ? micros : std::min(min_, micros);
  max_ = std::max(max_, micros);
  total_count_ += count;
  sum_ += micros * count;
}

void LatencyHistogram::recordDuration(std::chrono::nanoseconds elapsed) noexcept {
  const auto nanos = elapsed.count();
  record(nanos <= 0 ? 0 : (static_cast<std::uint64_t>(nanos) + 500) / 1000);
}

void LatencyHistogram::add(const LatencyHistogram& other) noexcept {
  if (other.total_count_ == 0) {
    return;
  }
  for (std::size_t index = 0; index < counts_.size(); ++index) {
    counts_[index] += other.counts_[index];
  }
  min_ = total_count_ == 0 ? other.min_ : std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  total_count_ += other.total_count_;
  clamped_count_ += other.clamped_count_;
  sum_ += other.sum_;
}

void LatencyHistogram::reset() noexcept {
  std::fill(counts_.begin(), counts_.end(), 0);
  total_count_ = 0;
  clamped_count_ = 0;
  min_ = 0;
  max_ = 0;
  sum_ = 0;
}

double LatencyHistogram::mean() const noexcept {
  return total_count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(total_count_);
}

std::uint64_t LatencyHistogram::valueAtPercentile(double percentile) const noexcept {
  if (total_count_ == 0) {
    return 0;
  }
  if (!(percentile > 0.0)) {  // also NaN
    return min_;
  }
  percentile = std::min(percentile, 100.0);
  // The relative slack keeps e.g. 99.9 % of 1000 values at rank 999 despite binary rounding.
  const double exact_rank = percentile / 100.0 * static_cast<double>(total_count_);
  const auto rank = std::clamp<std::uint64_t>(
      static_cast<std::uint64_t>(std::ceil(exact_rank * (1.0 - 1e-12))), 1, total_count_);
  std::uint64_t seen = 0;
  for (std::size_t index = 0; index < counts_.size(); ++index) {
    seen += counts_[index];
    if (seen >= rank) {
      return std::min(highestValueOfIndex(index), max_);
    }
  }
  return max_;
}

LatencyHistogram::RecordedBuckets::Iterator::Iterator(const std::vector<std::uint64_t>* counts,
                                                      std::size_t index)
    : counts_(counts), index_(index) {
  skipEmpty();
}

void LatencyHistogram::RecordedBuckets::Iterator::skipEmpty() {
  while (index_ < counts_->size() && (*counts_)[index_] == 0) {
    ++index_;
  }
}

HistogramBucket LatencyHistogram::RecordedBuckets::Iterator::operator*() const {
  return {lowestValueOfIndex(index_), highestValueOfIndex(index_), (*counts_)[index_]};
}

LatencyHistogram::RecordedBuckets::Iterator&
LatencyHistogram::RecordedBuckets::Iterator::operator++() {
  ++index_;
  skipEmpty();
  return *this;
}

LatencyHistogram::RecordedBuckets::Iterator LatencyHistogram::RecordedBuckets::Iterator::operator++(
    int) {
  Iterator before = *this;
  ++*this;
  return before;
}

LatencyHistogram LatencyHistogram::restore(const State& state) {
  const auto refuse = [](const std::string& why) {
    throw std::invalid_argument("latency histogram (" + std::string(kLayout) + "): " + why);
  };
  LatencyHistogram histogram;
  std::uint64_t total = 0;
  std::size_t lowest_index = kCounters;
  std::size_t highest_index = 0;
  for (const auto& [index, count] : state.counters) {
    if (index >= kCounters) {
      refuse("counter index " + std::to_string(index) + " is not below " +
             std::to_string(kCounters));
    }
    if (count == 0) {
      refuse("counter " + std::to_string(index) + " has a count of 0");
    }
    if (histogram.counts_[index] != 0) {
      refuse("counter " + std::to_string(index) + " is given twice");
    }
    if (count > std::numeric_limits<std::uint64_t>::max() - total) {
      refuse("the counts overflow");
    }
    histogram.counts_[index] = count;
    total += count;
    lowest_index = std::min(lowest_index, index);
    highest_index = std::max(highest_index, index);
  }
  if (total != state.count) {
    refuse("the counters add up to " + std::to_string(total) + ", not the count " +
           std::to_string(state.count));
  }
  if (total == 0) {
    if (state.min != 0 || state.max != 0 || state.sum != 0 || state.clamped != 0) {
      refuse("an empty histogram has min, max, sum and clamped 0");
    }
    return histogram;
  }
  if (state.min < lowestValueOfIndex(lowest_index) ||
      state.min > highestValueOfIndex(lowest_index)) {
    refuse("min " + std::to_string(state.min) + " is not in its first counter " +
           std::to_string(lowest_index));
  }
  if (state.max < lowestValueOfIndex(highest_index) ||
      state.max > highestValueOfIndex(highest_index)) {
    refuse("max " + std::to_string(state.max) + " is not in its last counter " +
           std::to_string(highest_index));
  }
  // count × min and count × max may pass 2^64 where the sum does not: an overflowing product
  // is above any sum.
  const auto below = [](std::uint64_t sum, std::uint64_t count, std::uint64_t value) {
    std::uint64_t product = 0;
    return __builtin_mul_overflow(count, value, &product) || sum < product;
  };
  const auto above = [](std::uint64_t sum, std::uint64_t count, std::uint64_t value) {
    std::uint64_t product = 0;
    return !__builtin_mul_overflow(count, value, &product) && sum > product;
  };
  if (below(state.sum, total, state.min) || above(state.sum, total, state.max)) {
    refuse("sum " + std::to_string(state.sum) + " is not between count × min and count × max");
  }
  if (state.clamped > histogram.counts_[kCounters - 1]) {
    refuse("clamped " + std::to_string(state.clamped) + " is more than the highest counter holds");
  }
  histogram.total_count_ = total;
  histogram.min_ = state.min;
  histogram.max_ = state.max;
  histogram.sum_ = state.sum;
  histogram.clamped_count_ = state.clamped;
  return histogram;
}

}  // namespace benchd::measurement
