#include <benchd/common/units.hpp>
#include <benchd/measurement/error_class.hpp>
#include <benchd/measurement/latency_histogram.hpp>
#include <benchd/results/load_summary.hpp>
#include <benchd/results/series.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace benchd::results {
namespace {

constexpr double kMicrosPerMilli = 1000.0;

double secondsOf(std::chrono::microseconds duration) {
  return common::secondsOfMicros(duration.count());
}

}  // namespace

LoadLatency LoadLatency::of(const measurement::LatencyHistogram& histogram) {
  const LatencyDigest digest = LatencyDigest::of(histogram);
  LoadLatency latency;
  latency.count = digest.count;
  latency.min = digest.min;
  latency.p50 = digest.p50;
  latency.p90 = digest.p90;
  latency.p99 = digest.p99;
  latency.p999 = interpolatedPercentile(histogram, 99.9) / kMicrosPerMilli;
  latency.max = digest.max;
  latency.mean = histogram.mean() / kMicrosPerMilli;
  latency.p75 = interpolatedPercentile(histogram, 75.0) / kMicrosPerMilli;
  return latency;
}

LoadSecondDigest LoadSecondDigest::of(const measurement::LoadSnapshot& snapshot) {
  LoadSecondDigest digest;
  digest.index = snapshot.index;
  digest.start_seconds = secondsOf(snapshot.start);
  digest.duration_seconds = secondsOf(snapshot.duration);
  digest.ok = snapshot.counters.requests_ok;
  digest.errors = snapshot.counters.errors.total();
  digest.requested = snapshot.counters.requests_requested;
  digest.dropped_arrivals = snapshot.counters.dropped_arrivals;
  digest.requests_per_second = snapshot.achieved_requests_per_second;
  digest.intended_requests_per_second = snapshot.intended_requests_per_second;
  digest.p50_millis = interpolatedPercentile(snapshot.latency, 50) / kMicrosPerMilli;
  digest.p99_millis = interpolatedPercentile(snapshot.latency, 99) / kMicrosPerMilli;
  digest.active_vus = snapshot.active_vus;
  digest.generator_cpu_percent = snapshot.generator_cpu_percent;
  return digest;
}

LoadSummary makeLoadSummary(LoadRunDescription run, const scenario::Workload& workload,
                            const measurement::PhaseResult& test,
                            std::vector<LoadSecondDigest> seconds) {
  const measurement::LoadCounters& totals = test.totals;
  LoadSummary summary;
  summary.run = std::move(run);
  summary.open_model = workload.isOpenModel();
  // A phase that ended at once still divides by something: rates come out huge, not infinite.
  summary.elapsed_seconds = std::max(1e-9, secondsOf(test.duration));

  summary.requests_sent = totals.requests_sent;
  summary.requests_completed = totals.requestsCompleted();
  summary.requests_ok = totals.requests_ok;
  summary.requests_errors = totals.errors.total();
  summary.requests_requested = totals.requests_requested;
  summary.requests_interrupted = totals.interrupted_requests;
  summary.dropped_arrivals = totals.dropped_arrivals;
  summary.late_arrivals = totals.late_arrivals;
  summary.errors_by_class.reserve(measurement::kAllErrorClasses.size());
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    summary.errors_by_class.push_back(
        {measurement::errorClassName(error_class), totals.errors[error_class]});
  }

  summary.requests_per_second = test.achieved_requests_per_second;
  summary.responses = totals.requests_ok + totals.errors[measurement::ErrorClass::kHttp4xx] +
                      totals.errors[measurement::ErrorClass::kHttp5xx];
  summary.responses_per_second = static_cast<double>(summary.responses) / summary.elapsed_seconds;
  summary.failures_per_second =
      static_cast<double>(summary.requests_completed -
                          std::min(summary.responses, summary.requests_completed)) /
      summary.elapsed_seconds;
  summary.nothing_answered = summary.requests_completed > 0 && summary.responses == 0;
  summary.intended_requests_per_second = test.intended_requests_per_second;
  summary.latency = LoadLatency::of(test.latency);
  summary.uncorrected_latency = LoadLatency::of(test.uncorrected_latency);
  summary.latencies_clamped = test.latency.clampedCount();

  summary.bytes_sent = totals.bytes_sent;
  summary.bytes_received = totals.bytes_received;
  summary.bytes_received_per_second =
      static_cast<double>(totals.bytes_received) / summary.elapsed_seconds;
  summary.connects = totals.connects;
  summary.peak_active_vus = test.peak_active_vus;

  summary.generator_threads = test.generator_threads;
  summary.generator_cores = test.generator_cores;
  summary.generator_cpu_percent_avg = test.generator_cpu_percent_avg;
  summary.generator_cpu_percent_max = test.generator_cpu_percent_max;
  summary.generator_cpu_seconds = secondsOf(test.generator_cpu_time);
  summary.generator_cpu_micros_per_request =
      summary.requests_completed == 0 ? 0.0
                                      : static_cast<double>(test.generator_cpu_time.count()) /
                                            static_cast<double>(summary.requests_completed);
  summary.generator_saturated = test.generator_saturated;
  summary.saturation_reason = test.saturation_reason;
  summary.warnings = test.warnings;
  if (summary.latencies_clamped > 0) {
    // Said where people look: the percentiles above these latencies are understated.
    summary.warnings.push_back(
        std::to_string(summary.latencies_clamped) + " latencies above " +
        std::to_string(measurement::LatencyHistogram::kHighestTrackableMicros / 1'000'000) +
        " s (the histogram's range) were counted as " +
        std::to_string(measurement::LatencyHistogram::kHighestTrackableMicros / 1'000'000) +
        " s; the highest percentiles are too low");
  }

  summary.seconds = std::move(seconds);
  return summary;
}

}  // namespace benchd::results
