// makeLoadSummary and its parts: every number the load reports print, from hand-made phases
// whose answers are known.
#include <benchd/results/load_summary.hpp>
#include <benchd/results/series.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace benchd::results {
namespace {

using std::chrono::microseconds;

scenario::SubScenario subScenario(scenario::ExecutorKind executor) {
  scenario::SubScenario sub;
  sub.name = "sub";
  sub.executor = executor;
  return sub;
}

scenario::Workload workloadOf(const std::vector<scenario::ExecutorKind>& executors) {
  scenario::Workload workload;
  workload.name = "w";
  for (const scenario::ExecutorKind executor : executors) {
    workload.sub_scenarios.push_back(subScenario(executor));
  }
  return workload;
}

LoadRunDescription description() {
  LoadRunDescription run;
  run.target = "http://127.0.0.1:8080";
  run.approach = "threads";
  run.workload = "w";
  run.connections = 8;
  run.test_seconds = 2;
  run.warmup_seconds = 1;
  run.requests_per_second = 100;
  run.delay_call_depth = 1;
  run.delay_millis = 5;
  run.stopped_early = true;
  return run;
}

/// A 2-second test phase: 10 latencies of 100, 200, ..., 1000 us (below 2,048 us each has its
/// own counter, so the percentiles are exact), 8 ok and 2 errors.
measurement::PhaseResult phase() {
  measurement::PhaseResult test;
  test.duration = microseconds(2'000'000);
  for (std::uint64_t micros = 100; micros <= 1000; micros += 100) {
    test.latency.record(micros);
  }
  test.uncorrected_latency.record(50);
  test.uncorrected_latency.record(150);
  test.totals.requests_sent = 11;
  test.totals.requests_ok = 8;
  test.totals.errors[measurement::ErrorClass::kHttp5xx] = 2;
  test.totals.requests_requested = 10;
  test.totals.interrupted_requests = 1;
  test.totals.dropped_arrivals = 3;
  test.totals.late_arrivals = 4;
  test.totals.bytes_sent = 1000;
  test.totals.bytes_received = 5000;
  test.totals.connects = 8;
  test.achieved_requests_per_second = 5.0;
  test.intended_requests_per_second = 100.0;
  test.peak_active_vus = 7;
  test.generator_threads = 2;
  test.generator_cores = 2;
  test.generator_cpu_percent_avg = 12.5;
  test.generator_cpu_percent_max = 30.0;
  test.generator_cpu_time = microseconds(25'000);
  test.generator_saturated = true;
  test.saturation_reason = "too busy";
  test.warnings = {"a warning"};
  return test;
}

TEST(LoadSummary, CopiesTheDescriptionAndTheCounts) {
  const LoadSummary summary = makeLoadSummary(
      description(), workloadOf({scenario::ExecutorKind::kConstantVus}), phase(), {});
  EXPECT_EQ(summary.run.target, "http://127.0.0.1:8080");
  EXPECT_EQ(summary.run.approach, "threads");
  EXPECT_EQ(summary.run.workload, "w");
  EXPECT_EQ(summary.run.connections, 8U);
  EXPECT_EQ(summary.run.test_seconds, 2U);
  EXPECT_EQ(summary.run.warmup_seconds, 1U);
  EXPECT_EQ(summary.run.requests_per_second, 100U);
  EXPECT_EQ(summary.run.delay_call_depth, 1U);
  EXPECT_EQ(summary.run.delay_millis, 5U);
  EXPECT_TRUE(summary.run.stopped_early);

  EXPECT_EQ(summary.requests_sent, 11U);
  EXPECT_EQ(summary.requests_completed, 10U);
  EXPECT_EQ(summary.requests_ok, 8U);
  EXPECT_EQ(summary.requests_errors, 2U);
  EXPECT_EQ(summary.requests_requested, 10U);
  EXPECT_EQ(summary.requests_interrupted, 1U);
  EXPECT_EQ(summary.dropped_arrivals, 3U);
  EXPECT_EQ(summary.late_arrivals, 4U);
  EXPECT_EQ(summary.bytes_sent, 1000U);
  EXPECT_EQ(summary.bytes_received, 5000U);
  EXPECT_EQ(summary.connects, 8U);
  EXPECT_EQ(summary.peak_active_vus, 7U);
  EXPECT_EQ(summary.requests_per_second, 5.0);
  // 8 ok and 2 http_5xx were answered: throughput counts them, nothing ended unanswered.
  EXPECT_EQ(summary.responses, 10U);
  EXPECT_DOUBLE_EQ(summary.responses_per_second, 5.0);
  EXPECT_DOUBLE_EQ(summary.failures_per_second, 0.0);
  EXPECT_FALSE(summary.nothing_answered);
  EXPECT_EQ(summary.intended_requests_per_second, 100.0);
  EXPECT_EQ(summary.generator_threads, 2U);
  EXPECT_EQ(summary.generator_cores, 2U);
  EXPECT_EQ(summary.generator_cpu_percent_avg, 12.5);
  EXPECT_EQ(summary.generator_cpu_percent_max, 30.0);
  EXPECT_TRUE(summary.generator_saturated);
  EXPECT_EQ(summary.saturation_reason, "too busy");
  EXPECT_EQ(summary.warnings, std::vector<std::string>{"a warning"});
}

TEST(LoadSummary, ListsEveryErrorClassInOrder) {
  const LoadSummary summary = makeLoadSummary(
      description(), workloadOf({scenario::ExecutorKind::kConstantVus}), phase(), {});
  ASSERT_EQ(summary.errors_by_class.size(), measurement::kAllErrorClasses.size());
  for (std::size_t index = 0; index < measurement::kAllErrorClasses.size(); ++index) {
    const measurement::ErrorClass error_class = measurement::kAllErrorClasses[index];
    EXPECT_EQ(summary.errors_by_class[index].name, measurement::errorClassName(error_class));
    EXPECT_EQ(summary.errors_by_class[index].count,
              error_class == measurement::ErrorClass::kHttp5xx ? 2U : 0U);
  }
}

TEST(LoadSummary, ComputesRatesAndPerRequestCpu) {
  const LoadSummary summary = makeLoadSummary(
      description(), workloadOf({scenario::ExecutorKind::kConstantVus}), phase(), {});
  EXPECT_DOUBLE_EQ(summary.elapsed_seconds, 2.0);
  EXPECT_DOUBLE_EQ(summary.bytes_received_per_second, 2500.0);
  EXPECT_DOUBLE_EQ(summary.generator_cpu_seconds, 0.025);
  // 25,000 us over 10 completed requests.
  EXPECT_DOUBLE_EQ(summary.generator_cpu_micros_per_request, 2500.0);
}

TEST(LoadSummary, NothingCompletedMeansNoCpuPerRequestAndAnEmptyPhaseNoDivisionByZero) {
  measurement::PhaseResult test;
  test.generator_cpu_time = microseconds(1000);
  test.totals.bytes_received = 1;
  const LoadSummary summary =
      makeLoadSummary(description(), workloadOf({scenario::ExecutorKind::kConstantVus}), test, {});
  EXPECT_EQ(summary.generator_cpu_micros_per_request, 0.0);
  EXPECT_EQ(summary.elapsed_seconds, 1e-9);
  EXPECT_DOUBLE_EQ(summary.bytes_received_per_second, 1e9);
  EXPECT_EQ(summary.latency.count, 0U);
  EXPECT_EQ(summary.latency.p99, 0.0);
  EXPECT_EQ(summary.latency.mean, 0.0);
}

TEST(LoadSummary, OpenModelWhenAnySubScenarioHasAnArrivalRate) {
  using scenario::ExecutorKind;
  const auto open = [](const std::vector<ExecutorKind>& executors) {
    return makeLoadSummary(description(), workloadOf(executors), phase(), {}).open_model;
  };
  EXPECT_FALSE(open({ExecutorKind::kConstantVus}));
  EXPECT_FALSE(open({ExecutorKind::kConstantVus, ExecutorKind::kRampingVus}));
  EXPECT_TRUE(open({ExecutorKind::kConstantArrivalRate}));
  EXPECT_TRUE(open({ExecutorKind::kRampingVus, ExecutorKind::kRampingArrivalRate}));
}

// numpy.percentile([100, 200, ..., 1000], p): the values `benchd run` would compute.
TEST(LoadSummary, LatencyPercentilesAreInterpolatedInMilliseconds) {
  const LoadSummary summary = makeLoadSummary(
      description(), workloadOf({scenario::ExecutorKind::kConstantVus}), phase(), {});
  const LoadLatency& latency = summary.latency;
  EXPECT_EQ(latency.count, 10U);
  EXPECT_DOUBLE_EQ(latency.min, 0.1);
  EXPECT_DOUBLE_EQ(latency.p50, 0.55);
  EXPECT_DOUBLE_EQ(latency.p90, 0.91);
  EXPECT_DOUBLE_EQ(latency.p99, 0.991);
  EXPECT_DOUBLE_EQ(latency.p999, 0.9991);
  EXPECT_DOUBLE_EQ(latency.p75, 0.775);
  EXPECT_DOUBLE_EQ(latency.max, 1.0);
  EXPECT_DOUBLE_EQ(latency.mean, 0.55);
  // The same numbers as the per-second series of `benchd run`.
  const LatencyDigest digest = LatencyDigest::of(phase().latency);
  EXPECT_EQ(latency.p50, digest.p50);
  EXPECT_EQ(latency.p90, digest.p90);
  EXPECT_EQ(latency.p99, digest.p99);

  const LoadLatency& uncorrected = summary.uncorrected_latency;
  EXPECT_EQ(uncorrected.count, 2U);
  EXPECT_DOUBLE_EQ(uncorrected.min, 0.05);
  EXPECT_DOUBLE_EQ(uncorrected.p50, 0.1);
  EXPECT_DOUBLE_EQ(uncorrected.max, 0.15);
}

TEST(LoadSummary, KeepsTheSecondsInOrder) {
  LoadSecondDigest first;
  first.index = 0;
  LoadSecondDigest second;
  second.index = 1;
  const LoadSummary summary = makeLoadSummary(
      description(), workloadOf({scenario::ExecutorKind::kConstantVus}), phase(), {first, second});
  ASSERT_EQ(summary.seconds.size(), 2U);
  EXPECT_EQ(summary.seconds[0].index, 0U);
  EXPECT_EQ(summary.seconds[1].index, 1U);
}

TEST(LoadSecondDigest, TakesTheSnapshotsNumbersInSecondsAndMilliseconds) {
  measurement::LoadSnapshot snapshot;
  snapshot.index = 3;
  snapshot.start = microseconds(3'000'000);
  snapshot.duration = microseconds(1'250'000);
  snapshot.counters.requests_ok = 40;
  snapshot.counters.errors[measurement::ErrorClass::kConnectionReset] = 1;
  snapshot.counters.errors[measurement::ErrorClass::kOther] = 2;
  snapshot.counters.requests_requested = 42;
  snapshot.counters.dropped_arrivals = 5;
  snapshot.achieved_requests_per_second = 34.4;
  snapshot.intended_requests_per_second = 50.0;
  for (std::uint64_t micros = 100; micros <= 1000; micros += 100) {
    snapshot.latency.record(micros);
  }
  snapshot.active_vus = 6;
  snapshot.generator_cpu_percent = 17.5;

  const LoadSecondDigest digest = LoadSecondDigest::of(snapshot);
  EXPECT_EQ(digest.index, 3U);
  EXPECT_DOUBLE_EQ(digest.start_seconds, 3.0);
  EXPECT_DOUBLE_EQ(digest.duration_seconds, 1.25);
  EXPECT_EQ(digest.ok, 40U);
  EXPECT_EQ(digest.errors, 3U);
  EXPECT_EQ(digest.requested, 42U);
  EXPECT_EQ(digest.dropped_arrivals, 5U);
  EXPECT_EQ(digest.requests_per_second, 34.4);
  EXPECT_EQ(digest.intended_requests_per_second, 50.0);
  EXPECT_DOUBLE_EQ(digest.p50_millis, 0.55);
  EXPECT_DOUBLE_EQ(digest.p99_millis, 0.991);
  EXPECT_EQ(digest.active_vus, 6U);
  EXPECT_EQ(digest.generator_cpu_percent, 17.5);
}

TEST(LoadSummary, RefusedConnectsAreFailuresNotThroughput) {
  measurement::PhaseResult test = phase();
  test.totals.requests_ok = 0;
  test.totals.errors = {};
  test.totals.errors[measurement::ErrorClass::kConnectionRefused] = 10;
  const LoadSummary summary =
      makeLoadSummary(description(), workloadOf({scenario::ExecutorKind::kConstantVus}), test, {});
  EXPECT_EQ(summary.responses, 0U);
  EXPECT_DOUBLE_EQ(summary.responses_per_second, 0.0);
  EXPECT_DOUBLE_EQ(summary.failures_per_second, 5.0);
  EXPECT_TRUE(summary.nothing_answered);
}

TEST(LoadSummary, LatenciesBeyondTheHistogramAreCountedAndWarnedAbout) {
  measurement::PhaseResult test = phase();
  test.latency.record(measurement::LatencyHistogram::kHighestTrackableMicros + 5'000'000);
  test.latency.record(measurement::LatencyHistogram::kHighestTrackableMicros * 2);
  const LoadSummary summary =
      makeLoadSummary(description(), workloadOf({scenario::ExecutorKind::kConstantVus}), test, {});
  EXPECT_EQ(summary.latencies_clamped, 2U);
  ASSERT_FALSE(summary.warnings.empty());
  EXPECT_EQ(summary.warnings.back(),
            "2 latencies above 67 s (the histogram's range) were counted as 67 s; the highest "
            "percentiles are too low");
  EXPECT_EQ(makeLoadSummary(description(), workloadOf({scenario::ExecutorKind::kConstantVus}),
                            phase(), {})
                .latencies_clamped,
            0U);
}

}  // namespace
}  // namespace benchd::results
