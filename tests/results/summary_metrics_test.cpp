// The summary metrics of a test phase, computed from hand-made series whose answers are known.
#include <benchd/results/series.hpp>
#include <benchd/results/summary_metrics.hpp>
#include <benchd/results/summary_row.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace benchd::results {
namespace {

constexpr std::uint64_t kKiB = 1024;

/// One second with `completed` requests (all ok and requested unless told otherwise) and the
/// given host numbers.
SecondRecord second(std::uint64_t completed, double cpu_user, std::uint64_t sockets,
                    std::uint64_t loopback_bytes, std::uint64_t packets) {
  SecondRecord record;
  record.load.counters.requests_ok = completed;
  record.load.counters.requests_requested = completed;
  record.system.host.cpu_user_percent = cpu_user;
  record.system.host.cpu_system_percent = 1.0;
  record.system.host.cpu_iowait_percent = 0.5;
  record.system.host.ram_used_percent = 40.0;
  record.system.host.tcp_sockets_in_use = sockets;
  record.system.host.loopback_rx_bytes = loopback_bytes / 2;
  record.system.host.loopback_tx_bytes = loopback_bytes - loopback_bytes / 2;
  record.system.host.loopback_rx_packets = packets / 2;
  record.system.host.loopback_tx_packets = packets - packets / 2;
  record.system.worker.present = true;
  record.system.worker.threads = 10;
  record.system.worker.rss_bytes = 8 * kKiB * kKiB;
  record.system.worker.cpu_micros = 50'000;
  record.system.worker.voluntary_context_switches = 300;
  record.system.worker.involuntary_context_switches = 100;
  WorkerStats stats;
  stats.heap_bytes = std::int64_t{2} * 1024 * 1024;
  record.system.worker_stats = stats;
  return record;
}

TEST(InterpolatedPercentile, MatchesNumpyLinearOnPlainValues) {
  // numpy.percentile([1, 2, 3, 4], q) for q = 0, 50, 90, 100.
  EXPECT_DOUBLE_EQ(interpolatedPercentile(std::vector<double>{4, 1, 3, 2}, 0), 1.0);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(std::vector<double>{4, 1, 3, 2}, 50), 2.5);
  EXPECT_NEAR(interpolatedPercentile(std::vector<double>{4, 1, 3, 2}, 90), 3.7, 1e-12);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(std::vector<double>{4, 1, 3, 2}, 100), 4.0);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(std::vector<double>{}, 50), 0.0);
}

TEST(InterpolatedPercentile, IsExactOnAHistogramOfSmallValues) {
  // Below 2,048 us every value has its own counter, so the histogram gives numpy's answer for
  // 1..100 exactly: p50 = 50.5, p90 = 90.1, p99 = 99.01.
  measurement::LatencyHistogram histogram;
  for (std::uint64_t value = 1; value <= 100; ++value) {
    histogram.record(value);
  }
  EXPECT_DOUBLE_EQ(interpolatedPercentile(histogram, 0), 1.0);
  EXPECT_NEAR(interpolatedPercentile(histogram, 50), 50.5, 1e-9);
  EXPECT_NEAR(interpolatedPercentile(histogram, 90), 90.1, 1e-9);
  EXPECT_NEAR(interpolatedPercentile(histogram, 99), 99.01, 1e-9);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(histogram, 100), 100.0);
}

TEST(InterpolatedPercentile, StaysWithinACounterOfTheTruthForLargeValues) {
  measurement::LatencyHistogram histogram;
  for (std::uint64_t value = 100'000; value < 101'000; ++value) {
    histogram.record(value);
  }
  const double p50 = interpolatedPercentile(histogram, 50);
  EXPECT_NEAR(p50, 100'499.5, 100'499.5 * 0.001);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(histogram, 0), 100'000.0);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(histogram, 100), 100'999.0);
  EXPECT_DOUBLE_EQ(interpolatedPercentile(measurement::LatencyHistogram{}, 50), 0.0);
}

TEST(ComputeSummary, FollowsTheOriginalsDefinitions) {
  // Seconds: an empty lead-in, three seconds with requests, an empty tail. The load window is
  // the middle three: host metrics must ignore the idle seconds at both ends.
  std::vector<SecondRecord> seconds = {
      second(0, 90.0, 999, 0, 0),               // outside the load window
      second(100, 10.0, 50, 100 * kKiB, 400),   // 1 KiB and 4 packets per request
      second(200, 20.0, 60, 400 * kKiB, 1200),  // 2 KiB and 6 packets per request
      second(100, 30.0, 71, 100 * kKiB, 400),
      second(0, 95.0, 999, 0, 0),  // outside the load window
  };
  seconds[2].load.counters.requests_requested = 190;  // ten fast failures: not requested
  seconds[2].load.counters.requests_ok = 190;
  seconds[2].load.counters.errors[measurement::ErrorClass::kConnectionRefused] = 10;
  seconds[4].system.worker.threads = 14;

  measurement::PhaseResult test;
  test.totals.requests_ok = 390;
  test.totals.errors[measurement::ErrorClass::kConnectionRefused] = 10;
  for (std::uint64_t value = 1; value <= 100; ++value) {
    test.latency.record(value * 1000);  // 1 .. 100 ms
  }
  test.achieved_requests_per_second = 133.3;
  test.generator_cpu_percent_avg = 12.0;

  const TestPhaseData data{test, seconds, false};
  const SummaryRow row = computeSummary("s", "a", data);
  EXPECT_EQ(row.scenario, "s");
  EXPECT_EQ(row.approach, "a");
  EXPECT_FALSE(row.failed);
  EXPECT_DOUBLE_EQ(row.metric("requests_ok"), 390);
  EXPECT_DOUBLE_EQ(row.metric("requests_error"), 10);
  // Requested per second: 0, 100, 190, 100, 0 -> p50 100, p90 (rank 3.6) 190 - 0.4 * 90 = 154,
  // max 190.
  EXPECT_DOUBLE_EQ(row.metric("requests_per_second_p50"), 100);
  EXPECT_NEAR(row.metric("requests_per_second_p90"), 154, 1e-9);
  EXPECT_DOUBLE_EQ(row.metric("requests_per_second_max"), 190);
  EXPECT_NEAR(row.metric("latency_millis_min"), 1.0, 0.001);
  EXPECT_NEAR(row.metric("latency_millis_p50"), 50.5, 0.05);
  EXPECT_NEAR(row.metric("latency_millis_p99"), 99.01, 0.1);
  EXPECT_NEAR(row.metric("latency_millis_max"), 100.0, 0.001);
  // CPU = user + system + iowait over the window: 11.5, 21.5, 31.5.
  EXPECT_DOUBLE_EQ(row.metric("cpu_use_percent_avg"), 21.5);
  EXPECT_DOUBLE_EQ(row.metric("cpu_use_percent_max"), 31.5);
  EXPECT_DOUBLE_EQ(row.metric("ram_use_percent_avg"), 40.0);
  EXPECT_DOUBLE_EQ(row.metric("heap_mib_avg"), 2.0);
  EXPECT_DOUBLE_EQ(row.metric("rss_mib_max"), 8.0);
  // 5 seconds x 400 switches over 400 completed requests; 5 x 50 ms CPU over 400.
  EXPECT_DOUBLE_EQ(row.metric("context_switches_per_request"), 5.0);
  EXPECT_DOUBLE_EQ(row.metric("cpu_millis_per_request"), 0.625);
  // Threads over every second (10, 10, 10, 10, 14): avg 10.8 rounds to 11.
  EXPECT_DOUBLE_EQ(row.metric("os_threads_avg"), 11);
  EXPECT_DOUBLE_EQ(row.metric("os_threads_max"), 14);
  // Sockets over the window (50, 60, 71): avg 60.33 rounds to 60.
  EXPECT_DOUBLE_EQ(row.metric("sockets_avg"), 60);
  EXPECT_DOUBLE_EQ(row.metric("sockets_max"), 71);
  // 600 KiB over 400 requests; the busiest second's ratio is 2 KiB.
  EXPECT_DOUBLE_EQ(row.metric("network_kib_per_req_avg"), 1.5);
  EXPECT_DOUBLE_EQ(row.metric("network_kib_per_req_max"), 2.0);
  EXPECT_DOUBLE_EQ(row.metric("network_packets_per_req_avg"), 5.0);
  EXPECT_DOUBLE_EQ(row.metric("network_packets_per_req_max"), 6.0);
  EXPECT_EQ(row.diagnostics.errors_by_class, "connection_refused=10");
  EXPECT_DOUBLE_EQ(row.diagnostics.generator_cpu_percent_avg, 12.0);
  EXPECT_FALSE(row.diagnostics.open_model);
}

TEST(ComputeSummary, MeasuresWhatTheRestOfTheHostUsed) {
  // Two CPUs. In the load window the host is 21.5, 61.5 and 31.5 % busy (of both CPUs); the
  // worker uses 30 % of one core and benchd 10 %, i.e. 20 % of the host: the rest used 1.5,
  // 41.5 and 11.5 %. A second where ours exceeds the host's figure (samples a tick apart)
  // counts as 0, not negative.
  std::vector<SecondRecord> seconds = {second(100, 20.0, 10, 0, 0), second(100, 60.0, 10, 0, 0),
                                       second(100, 30.0, 10, 0, 0), second(100, 0.0, 10, 0, 0)};
  // Memory: 8 GiB; the host uses 50 % of it, the worker 1 GiB and benchd 1 GiB (25 %), so the
  // rest held 25 %.
  for (SecondRecord& record : seconds) {
    record.system.host.cpus = 2;
    record.system.worker.cpu_percent = 30.0;
    record.system.generator.cpu_percent = 10.0;
    record.system.host.ram_total_bytes = 8ULL << 30U;
    record.system.host.ram_used_percent = 50.0;
    record.system.worker.rss_bytes = 1ULL << 30U;
    record.system.generator.rss_bytes = 1ULL << 30U;
  }
  seconds[1].system.host.ram_used_percent = 60.0;
  measurement::PhaseResult test;
  test.totals.requests_ok = 400;
  const SummaryRow row = computeSummary("s", "a", TestPhaseData{test, seconds, false});
  // (1.5 + 41.5 + 11.5 + 0) / 4.
  EXPECT_DOUBLE_EQ(row.diagnostics.other_cpu_percent_avg, 13.625);
  EXPECT_DOUBLE_EQ(row.diagnostics.other_cpu_percent_max, 41.5);
  EXPECT_TRUE(busyHost(row.diagnostics));
  // (25 + 35 + 25 + 25) / 4.
  EXPECT_DOUBLE_EQ(row.diagnostics.other_ram_percent_avg, 27.5);
  EXPECT_DOUBLE_EQ(row.diagnostics.other_ram_percent_max, 35.0);
  // Without the host's CPU count and RAM size (seconds stored before schema 5) no share is
  // computed.
  for (SecondRecord& record : seconds) {
    record.system.host.cpus = 0;
    record.system.host.ram_total_bytes = 0;
  }
  const SummaryRow unknown = computeSummary("s", "a", TestPhaseData{test, seconds, false});
  EXPECT_DOUBLE_EQ(unknown.diagnostics.other_cpu_percent_avg, 0.0);
  EXPECT_DOUBLE_EQ(unknown.diagnostics.other_ram_percent_avg, 0.0);
}

TEST(ComputeSummary, GivesZerosWithoutRequests) {
  measurement::PhaseResult test;
  const std::vector<SecondRecord> seconds = {second(0, 50.0, 10, 0, 0)};
  const SummaryRow row = computeSummary("s", "a", TestPhaseData{test, seconds, false});
  EXPECT_DOUBLE_EQ(row.metric("cpu_use_percent_avg"), 0.0);  // no load window at all
  EXPECT_DOUBLE_EQ(row.metric("latency_millis_p50"), 0.0);
  EXPECT_DOUBLE_EQ(row.metric("cpu_millis_per_request"), 0.0);
  EXPECT_DOUBLE_EQ(row.metric("network_kib_per_req_avg"), 0.0);
}

TEST(ComputeSummary, ReportsUncorrectedLatencyForOpenModels) {
  measurement::PhaseResult test;
  test.latency.record(200'000);
  test.uncorrected_latency.record(5'000);
  test.totals.requests_ok = 1;
  const std::vector<SecondRecord> seconds = {second(1, 1.0, 1, 0, 0)};
  const SummaryRow row = computeSummary("s", "a", TestPhaseData{test, seconds, true});
  EXPECT_TRUE(row.diagnostics.open_model);
  EXPECT_NEAR(row.diagnostics.uncorrected_latency_millis_p50, 5.0, 0.01);
  EXPECT_NEAR(row.metric("latency_millis_p50"), 200.0, 0.2);
}

TEST(FailedRow, IsMissingButForItsCounts) {
  const SummaryRow row = failedRow("s", "a", "worker died", 0);
  EXPECT_TRUE(row.failed);
  EXPECT_EQ(row.failure_reason, "worker died");
  for (std::size_t index = 0; index < kMetricCount; ++index) {
    const std::string_view name = kMetricNames[index];
    if (name == "requests_error") {
      EXPECT_DOUBLE_EQ(row.metrics[index], 1.0);  // at least one
    } else if (name == "requests_ok") {
      EXPECT_DOUBLE_EQ(row.metrics[index], 0.0);  // nothing answered before the fault
    } else {
      EXPECT_TRUE(std::isnan(row.metrics[index])) << name << " must be missing, never 0";
    }
  }
  EXPECT_DOUBLE_EQ(failedRow("s", "a", "x", 42).metric("requests_error"), 42.0);
  EXPECT_DOUBLE_EQ(failedRow("s", "a", "x", 3, 700).metric("requests_ok"), 700.0);
  EXPECT_THROW(static_cast<void>(row.metric("no_such_metric")), std::invalid_argument);
}

TEST(LoadSecond, DigestsASnapshotAndKeepsItsBuckets) {
  measurement::LoadSnapshot snapshot;
  snapshot.index = 3;
  snapshot.start = std::chrono::seconds(3);
  snapshot.duration = std::chrono::seconds(1);
  snapshot.counters.requests_ok = 2;
  snapshot.latency.record(1'000);
  snapshot.latency.record(3'000);
  const LoadSecond second = LoadSecond::of(snapshot);
  EXPECT_EQ(second.index, 3U);
  EXPECT_EQ(second.start_micros, 3'000'000);
  EXPECT_EQ(second.latency.count, 2U);
  EXPECT_NEAR(second.latency.p50, 2.0, 0.01);
  ASSERT_EQ(second.latency_buckets.size(), 2U);
  EXPECT_EQ(second.latency_buckets[0].count, 1U);
}

}  // namespace
}  // namespace benchd::results
