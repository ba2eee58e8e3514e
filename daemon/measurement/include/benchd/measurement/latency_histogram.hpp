#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::measurement {

/// Values counted together: every recorded value in [lowest_micros, highest_micros].
struct HistogramBucket {
  std::uint64_t lowest_micros = 0;
  std::uint64_t highest_micros = 0;
  std::uint64_t count = 0;

  bool operator==(const HistogramBucket&) const = default;
};

/// Counts latencies in microseconds with three significant digits, in the log-linear scheme of
/// HdrHistogram: values below 2048 have their own counter; above, each power-of-two range
/// [1024 * 2^k, 2048 * 2^k) is split into 1024 counters of width 2^k, so a counter never spans
/// more than 1/1024 of its values (< 0.1 %). The range is 0 to kHighestTrackableMicros
/// (about 67 s); larger values are counted as that maximum and also in clampedCount().
///
/// Memory is fixed at construction (about 136 KiB) and record() is O(1) and never allocates.
/// count, min, max and the sum behind mean() are exact (with clamped values at the maximum).
/// Not thread-safe: each load-generator thread records into its own histogram, and a reader
/// merges copies with add().
class LatencyHistogram {
 public:
  static constexpr std::uint64_t kHighestTrackableMicros = (std::uint64_t{1} << 26) - 1;
  static constexpr int kSignificantDigits = 3;
  /// The counter layout's name: two histograms (on two hosts, from two benchd versions) can be
  /// merged counter by counter only when their layouts match. It names the resolution (11
  /// sub-bucket bits) and the range (2^26 - 1 µs); a change to either must change it.
  static constexpr std::string_view kLayout = "log-linear-us-11-26";
  /// The number of counters of kLayout; a counter index is below it.
  static const std::size_t kCounterCount;

  LatencyHistogram();

  void record(std::uint64_t micros) noexcept { record(micros, 1); }
  /// Counts `micros` `count` times.
  void record(std::uint64_t micros, std::uint64_t count) noexcept;
  /// Records `elapsed` rounded to the nearest microsecond; negative durations count as 0.
  void recordDuration(std::chrono::nanoseconds elapsed) noexcept;

  /// Adds every count of `other` to this histogram.
  void add(const LatencyHistogram& other) noexcept;
  /// Forgets everything recorded; keeps the memory.
  void reset() noexcept;

  [[nodiscard]] std::uint64_t count() const noexcept { return total_count_; }
  /// How many recorded values were above kHighestTrackableMicros.
  [[nodiscard]] std::uint64_t clampedCount() const noexcept { return clamped_count_; }
  /// Smallest and largest recorded value; 0 when empty.
  [[nodiscard]] std::uint64_t min() const noexcept { return total_count_ == 0 ? 0 : min_; }
  [[nodiscard]] std::uint64_t max() const noexcept { return max_; }
  /// The exact sum of the recorded values (clamped ones at the maximum): what adds up across
  /// histograms where means do not.
  [[nodiscard]] std::uint64_t sum() const noexcept { return sum_; }
  /// Arithmetic mean of the recorded values; 0 when empty.
  [[nodiscard]] double mean() const noexcept;

  /// The nearest-rank percentile: the smallest value such that at least `percentile` % of the
  /// recorded values are at most that value, reported as the highest value of its counter
  /// (so never below the exact answer, and above it by less than 0.1 %) but no more than max().
  /// `percentile` is clamped to [0, 100]; 0 gives min(). 0 when empty.
  [[nodiscard]] std::uint64_t valueAtPercentile(double percentile) const noexcept;

  /// The non-empty counters in increasing value order, for export. The view reads the
  /// histogram; it is invalidated by anything that changes it.
  class RecordedBuckets {
   public:
    class Iterator {
     public:
      using iterator_category = std::forward_iterator_tag;
      using value_type = HistogramBucket;
      using difference_type = std::ptrdiff_t;
      using pointer = const HistogramBucket*;
      using reference = HistogramBucket;

      Iterator() = default;
      HistogramBucket operator*() const;
      Iterator& operator++();
      Iterator operator++(int);
      bool operator==(const Iterator& other) const noexcept { return index_ == other.index_; }

     private:
      friend class RecordedBuckets;
      Iterator(const std::vector<std::uint64_t>* counts, std::size_t index);
      void skipEmpty();

      const std::vector<std::uint64_t>* counts_ = nullptr;
      std::size_t index_ = 0;
    };

    [[nodiscard]] Iterator begin() const { return {counts_, 0}; }
    [[nodiscard]] Iterator end() const { return {counts_, counts_->size()}; }

   private:
    friend class LatencyHistogram;
    explicit RecordedBuckets(const std::vector<std::uint64_t>& counts) : counts_(&counts) {}

    const std::vector<std::uint64_t>* counts_;
  };

  [[nodiscard]] RecordedBuckets recordedBuckets() const { return RecordedBuckets(counts_); }

  /// Calls `visit(index, count)` for every non-empty counter, in index order: the histogram's
  /// whole state together with count, min, max, sum and clampedCount (restore's inputs).
  template <typename Visit>
  void forEachCounter(Visit&& visit) const {
    for (std::size_t index = 0; index < counts_.size(); ++index) {
      if (counts_[index] != 0) {
        visit(index, counts_[index]);
      }
    }
  }

  /// The state a histogram was exported as (forEachCounter and the accessors), e.g. by another
  /// host. Restores exactly: restore(...) == the exported histogram.
  struct State {
    std::vector<std::pair<std::size_t, std::uint64_t>> counters;  ///< index, count; non-zero
    std::uint64_t count = 0;
    std::uint64_t min = 0;
    std::uint64_t max = 0;
    std::uint64_t sum = 0;
    std::uint64_t clamped = 0;
  };
  /// Throws std::invalid_argument naming what does not fit kLayout or itself: an index at or
  /// above kCounterCount or repeated, a zero count, counts that do not add up to `count`, a
  /// min or max outside the first or last counter's values, a sum outside [count × min,
  /// count × max], more clamped values than counted at the highest counter.
  [[nodiscard]] static LatencyHistogram restore(const State& state);

  bool operator==(const LatencyHistogram&) const = default;

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_count_ = 0;
  std::uint64_t clamped_count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  /// Exact for any realistic run: overflows only past 2^64 / kHighestTrackableMicros (about
  /// 2.7e11) maximal values.
  std::uint64_t sum_ = 0;
};

}  // namespace benchd::measurement
