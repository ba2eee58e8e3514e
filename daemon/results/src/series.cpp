#include <benchd/results/series.hpp>

#include <algorithm>
#include <cmath>

namespace benchd::results {
namespace {

/// The value standing for every sample of a counter: its midpoint, kept inside what was
/// recorded so the extreme ranks are exact.
double representative(const measurement::HistogramBucket& bucket,
                      const measurement::LatencyHistogram& h) {
  const double middle =
      (static_cast<double>(bucket.lowest_micros) + static_cast<double>(bucket.highest_micros)) /
      2.0;
  return std::clamp(middle, static_cast<double>(h.min()), static_cast<double>(h.max()));
}

}  // namespace

double interpolatedPercentile(const measurement::LatencyHistogram& histogram, double percentile) {
  const std::uint64_t count = histogram.count();
  if (count == 0) {
    return 0.0;
  }
  const double rank = std::clamp(percentile, 0.0, 100.0) / 100.0 * static_cast<double>(count - 1);
  const auto lower_rank = static_cast<std::uint64_t>(std::floor(rank));
  const std::uint64_t upper_rank = std::min(lower_rank + 1, count - 1);
  if (lower_rank == 0 && rank == 0.0) {
    return static_cast<double>(histogram.min());
  }
  if (lower_rank == count - 1) {
    return static_cast<double>(histogram.max());
  }
  // Walk the counters once, picking up the values of both neighbouring ranks.
  double lower_value = 0.0;
  double upper_value = 0.0;
  std::uint64_t seen = 0;
  bool lower_found = false;
  for (const measurement::HistogramBucket bucket : histogram.recordedBuckets()) {
    seen += bucket.count;
    if (!lower_found && lower_rank < seen) {
      lower_value = representative(bucket, histogram);
      lower_found = true;
    }
    if (upper_rank < seen) {
      upper_value = representative(bucket, histogram);
      break;
    }
  }
  if (lower_rank == 0) {
    lower_value = static_cast<double>(histogram.min());
  }
  if (upper_rank == count - 1) {
    upper_value = static_cast<double>(histogram.max());
  }
  const double fraction = rank - static_cast<double>(lower_rank);
  return lower_value + fraction * (upper_value - lower_value);
}

double interpolatedPercentile(std::vector<double> values, double percentile) {
  if (values.empty()) {
    return 0.0;
  }
  std::sort(values.begin(), values.end());
  const double rank =
      std::clamp(percentile, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(rank));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  const double fraction = rank - static_cast<double>(lower);
  return values[lower] + fraction * (values[upper] - values[lower]);
}

LatencyDigest LatencyDigest::of(const measurement::LatencyHistogram& histogram) {
  LatencyDigest digest;
  digest.count = histogram.count();
  const auto millis = [&histogram](double percentile) {
    return interpolatedPercentile(histogram, percentile) / 1000.0;
  };
  digest.min = millis(0);
  digest.p50 = millis(50);
  digest.p90 = millis(90);
  digest.p99 = millis(99);
  digest.max = millis(100);
  return digest;
}

namespace {

/// An interval's length in seconds; at least a microsecond, so a rate is never a division by 0.
double intervalSeconds(const LoadSecond& second) {
  return std::max(1e-6, static_cast<double>(second.duration_micros) / 1e6);
}

}  // namespace

double SystemSample::otherCpuPercent() const {
  if (host.cpus == 0) {
    return 0.0;
  }
  const double host_busy =
      host.cpu_user_percent + host.cpu_system_percent + host.cpu_iowait_percent;
  const double ours = (worker.cpu_percent + generator.cpu_percent + database.cpu_percent) /
                      static_cast<double>(host.cpus);
  return std::max(0.0, host_busy - ours);
}

double SystemSample::otherRamPercent() const {
  if (host.ram_total_bytes == 0) {
    return 0.0;
  }
  const double ours =
      100.0 * static_cast<double>(worker.rss_bytes + generator.rss_bytes + database.rss_bytes) /
      static_cast<double>(host.ram_total_bytes);
  return std::max(0.0, host.ram_used_percent - ours);
}

double LoadSecond::okPerSecond() const {
  return static_cast<double>(counters.requests_ok) / intervalSeconds(*this);
}

double LoadSecond::failedPerSecond() const {
  return static_cast<double>(counters.errors.total()) / intervalSeconds(*this);
}

LoadSecond LoadSecond::of(const measurement::LoadSnapshot& snapshot) {
  LoadSecond second;
  second.phase = snapshot.phase;
  second.index = snapshot.index;
  second.start_micros = snapshot.start.count();
  second.duration_micros = snapshot.duration.count();
  second.end_epoch_millis = snapshot.end_epoch_millis;
  second.counters = snapshot.counters;
  second.achieved_requests_per_second = snapshot.achieved_requests_per_second;
  second.intended_requests_per_second = snapshot.intended_requests_per_second;
  second.active_vus = snapshot.active_vus;
  second.generator_cpu_percent = snapshot.generator_cpu_percent;
  second.latency = LatencyDigest::of(snapshot.latency);
  second.uncorrected_latency = LatencyDigest::of(snapshot.uncorrected_latency);
  for (const measurement::HistogramBucket bucket : snapshot.latency.recordedBuckets()) {
    second.latency_buckets.push_back(bucket);
  }
  return second;
}

}  // namespace benchd::results
