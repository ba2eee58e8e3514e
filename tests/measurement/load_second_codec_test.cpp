// A second of load as it travels between hosts: read back exactly, merged exactly, and refused
// with the field named when it does not fit.
#include <benchd/measurement/load_second_codec.hpp>

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace benchd::measurement {
namespace {

/// A second with every member set, and latencies from 50 µs to past the histogram's range.
NumberedSecond sampleSecond() {
  NumberedSecond numbered;
  numbered.sequence = 41;
  LoadSnapshot& second = numbered.second;
  second.phase = PhaseKind::kTest;
  second.index = 7;
  second.start = std::chrono::microseconds(7'000'113);
  second.duration = std::chrono::microseconds(999'871);
  second.end_epoch_millis = 1'765'000'000'123;
  std::mt19937_64 random(7);
  std::lognormal_distribution<double> latency(8.0, 1.5);
  for (int i = 0; i < 5'000; ++i) {
    const auto micros = static_cast<std::uint64_t>(latency(random));
    second.latency.record(micros);
    second.uncorrected_latency.record(micros / 2);
  }
  second.latency.record(LatencyHistogram::kHighestTrackableMicros + 99);  // clamped
  second.uncorrected_latency.record(3);
  second.counters.requests_sent = 5'010;
  second.counters.requests_ok = 4'990;
  second.counters.errors[ErrorClass::kConnectionReset] = 7;
  second.counters.errors[ErrorClass::kRequestTimeout] = 4;
  second.counters.requests_requested = second.latency.count();
  second.counters.bytes_sent = 812'345;
  second.counters.bytes_received = 9'876'543;
  second.counters.connects = 12;
  second.counters.dropped_arrivals = 3;
  second.counters.late_arrivals = 5;
  second.counters.interrupted_requests = 2;
  second.achieved_requests_per_second = 5001.0 / 0.999871;  // a double with many digits
  second.intended_requests_per_second = 5000.0;
  second.active_vus = 433;
  second.peak_active_vus = 511;
  second.generator_cpu_percent = 100.0 / 3.0;
  second.generator_cores = 2;
  return numbered;
}

void expectSameSecond(const NumberedSecond& read, const NumberedSecond& sent) {
  EXPECT_EQ(read.sequence, sent.sequence);
  const LoadSnapshot& a = read.second;
  const LoadSnapshot& b = sent.second;
  EXPECT_EQ(a.phase, b.phase);
  EXPECT_EQ(a.index, b.index);
  EXPECT_EQ(a.start, b.start);
  EXPECT_EQ(a.duration, b.duration);
  EXPECT_EQ(a.end_epoch_millis, b.end_epoch_millis);
  EXPECT_TRUE(a.latency == b.latency);
  EXPECT_TRUE(a.uncorrected_latency == b.uncorrected_latency);
  EXPECT_EQ(a.counters, b.counters);
  // Bit for bit, not within a tolerance.
  EXPECT_EQ(a.achieved_requests_per_second, b.achieved_requests_per_second);
  EXPECT_EQ(a.intended_requests_per_second, b.intended_requests_per_second);
  EXPECT_EQ(a.active_vus, b.active_vus);
  EXPECT_EQ(a.peak_active_vus, b.peak_active_vus);
  EXPECT_EQ(a.generator_cpu_percent, b.generator_cpu_percent);
  EXPECT_EQ(a.generator_cores, b.generator_cores);
}

TEST(LoadSecondCodec, ASecondReadsBackExactly) {
  const NumberedSecond sent = sampleSecond();
  ASSERT_EQ(sent.second.latency.clampedCount(), 1U);
  expectSameSecond(decodeLoadSecond(encodeLoadSecond(sent)), sent);

  NumberedSecond empty;
  empty.second.phase = PhaseKind::kWarmup;
  expectSameSecond(decodeLoadSecond(encodeLoadSecond(empty)), empty);
}

/// Known latencies split between two generators at random: their seconds, sent and read back,
/// add up to the histogram of one generator that recorded them all, and so to its percentiles.
TEST(LoadSecondCodec, TheMergeOfThePartsIsTheWhole) {
  LatencyHistogram whole;
  NumberedSecond parts[2];
  std::mt19937_64 random(11);
  std::lognormal_distribution<double> latency(9.0, 2.0);
  std::bernoulli_distribution first(0.3);
  for (int i = 0; i < 20'000; ++i) {
    const auto micros = static_cast<std::uint64_t>(latency(random));
    whole.record(micros);
    parts[first(random) ? 0 : 1].second.latency.record(micros);
  }
  LatencyHistogram merged;
  for (NumberedSecond& part : parts) {
    part.second.counters.requests_requested = part.second.latency.count();
    merged.add(decodeLoadSecond(encodeLoadSecond(part)).second.latency);
  }
  EXPECT_TRUE(merged == whole);
  for (const double percentile : {50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(merged.valueAtPercentile(percentile), whole.valueAtPercentile(percentile))
        << "p" << percentile;
  }
}

/// `json` with the first `from` replaced by `to`.
std::string edited(std::string json, const std::string& from, const std::string& to) {
  const std::size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? json : json.replace(at, from.size(), to);
}

void expectRefusal(const std::string& json, const std::string& message) {
  try {
    (void)decodeLoadSecond(json);
    ADD_FAILURE() << "accepted, expected: " << message;
  } catch (const LoadSecondCodecError& error) {
    EXPECT_NE(std::string(error.what()).find(message), std::string::npos) << error.what();
  }
}

TEST(LoadSecondCodec, WhatDoesNotFitIsRefusedNamingTheField) {
  NumberedSecond second;
  second.second.latency.record(100);
  second.second.latency.record(5'000);
  second.second.counters.requests_requested = 2;
  const std::string json = encodeLoadSecond(second);
  ASSERT_NE(json.find("\"counters\":[[100,1],"), std::string::npos) << json;

  expectRefusal("{", "load second: the second: not JSON");
  expectRefusal(edited(json, "\"sequence\":0,", ""), "load second: sequence: missing");
  expectRefusal(edited(json, "\"phase\":\"test\"", "\"phase\":\"cooldown\""),
                "load second: phase: expected 'warmup' or 'test', got 'cooldown'");
  expectRefusal(edited(json, "\"requestsOk\":0", "\"requestsOk\":-1"),
                "load second: counters.requestsOk: expected an unsigned integer");
  expectRefusal(edited(json, "\"connection_reset\":0", "\"connection_reset\":\"0\""),
                "load second: counters.errors.connection_reset: expected an unsigned integer");
  expectRefusal(edited(json, "log-linear-us-11-26", "log-linear-us-12-26"),
                "load second: latency.layout: 'log-linear-us-12-26' is not this benchd's "
                "'log-linear-us-11-26' (install the same benchd version on every host)");
  expectRefusal(edited(json, "[[100,1],", "[[99999999,1],"),
                "load second: latency.counters: latency histogram (log-linear-us-11-26): counter "
                "index 99999999 is not below");
  expectRefusal(edited(json, "[[100,1],", "[[100,2],"),
                "the counters add up to 3, not the count 2");
  expectRefusal(edited(json, "\"min\":100", "\"min\":50"),
                "min 50 is not in its first counter 100");
  expectRefusal(edited(json, "[[100,1],", "[[100,1],[100,1],"), "counter 100 is given twice");
  expectRefusal(edited(json, "\"requestsRequested\":2", "\"requestsRequested\":3"),
                "load second: latency.count: is not counters.requestsRequested (3)");
}

TEST(LatencyHistogramState, RestoresWhatItExportedAndChecksTheSum) {
  LatencyHistogram histogram;
  histogram.record(10, 3);
  histogram.record(70'000);
  LatencyHistogram::State state;
  histogram.forEachCounter([&state](std::size_t index, std::uint64_t count) {
    state.counters.emplace_back(index, count);
  });
  state.count = histogram.count();
  state.min = histogram.min();
  state.max = histogram.max();
  state.sum = histogram.sum();
  state.clamped = histogram.clampedCount();
  EXPECT_TRUE(LatencyHistogram::restore(state) == histogram);

  state.sum = 29;  // below count × min = 40
  EXPECT_THROW((void)LatencyHistogram::restore(state), std::invalid_argument);
  state.sum = histogram.sum();
  state.clamped = 1;  // nothing was counted at the highest counter
  EXPECT_THROW((void)LatencyHistogram::restore(state), std::invalid_argument);
}

}  // namespace
}  // namespace benchd::measurement
