#include <benchd/common/json_writing.hpp>
#include <benchd/results/load_report_json.hpp>

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/writer.h>

#include <ostream>
#include <string>
#include <string_view>

namespace benchd::results {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::OStreamWrapper>;
using common::field;
using common::key;
using common::value;

void writeLatency(JsonWriter& json, const LoadLatency& latency) {
  json.StartObject();
  field(json, "count", latency.count);
  field(json, "min", latency.min);
  field(json, "p50", latency.p50);
  field(json, "p75", latency.p75);
  field(json, "p90", latency.p90);
  field(json, "p99", latency.p99);
  field(json, "p999", latency.p999);
  field(json, "max", latency.max);
  field(json, "mean", latency.mean);
  json.EndObject();
}

void writeRun(JsonWriter& json, const LoadSummary& summary) {
  const LoadRunDescription& run = summary.run;
  field(json, "workload", run.workload);
  field(json, "url", run.target);
  field(json, "approach", run.approach);
  field(json, "openModel", summary.open_model);
  field(json, "connections", std::uint64_t{run.connections});
  field(json, "durationSeconds", std::uint64_t{run.test_seconds});
  field(json, "warmupSeconds", std::uint64_t{run.warmup_seconds});
  key(json, "rate");
  if (run.requests_per_second) {
    json.Uint(*run.requests_per_second);
  } else {
    json.Null();
  }
  key(json, "requestLimit");
  if (run.request_limit) {
    json.Uint64(*run.request_limit);
  } else {
    json.Null();
  }
  field(json, "stoppedEarly", run.stopped_early);
  field(json, "elapsedSeconds", summary.elapsed_seconds);
}

void writeRequests(JsonWriter& json, const LoadSummary& summary) {
  key(json, "requests");
  json.StartObject();
  field(json, "sent", summary.requests_sent);
  field(json, "completed", summary.requests_completed);
  field(json, "ok", summary.requests_ok);
  field(json, "errors", summary.requests_errors);
  field(json, "requested", summary.requests_requested);
  field(json, "interrupted", summary.requests_interrupted);
  field(json, "droppedArrivals", summary.dropped_arrivals);
  field(json, "lateArrivals", summary.late_arrivals);
  json.EndObject();

  key(json, "errors");
  json.StartObject();
  for (const ErrorClassCount& error_class : summary.errors_by_class) {
    key(json, error_class.name);
    json.Uint64(error_class.count);
  }
  json.EndObject();
}

void writeGenerator(JsonWriter& json, const LoadSummary& summary) {
  key(json, "generator");
  json.StartObject();
  field(json, "threads", std::uint64_t{summary.generator_threads});
  field(json, "cores", std::uint64_t{summary.generator_cores});
  field(json, "cpuPercentAvg", summary.generator_cpu_percent_avg);
  field(json, "cpuPercentMax", summary.generator_cpu_percent_max);
  field(json, "cpuSeconds", summary.generator_cpu_seconds);
  field(json, "cpuMicrosPerRequest", summary.generator_cpu_micros_per_request);
  field(json, "saturated", summary.generator_saturated);
  field(json, "saturationReason", summary.saturation_reason);
  json.EndObject();
}

void writeSecond(JsonWriter& json, const LoadSecondDigest& second) {
  json.StartObject();
  field(json, "index", std::uint64_t{second.index});
  field(json, "startSeconds", second.start_seconds);
  field(json, "durationSeconds", second.duration_seconds);
  field(json, "ok", second.ok);
  field(json, "errors", second.errors);
  field(json, "requested", second.requested);
  field(json, "droppedArrivals", second.dropped_arrivals);
  field(json, "requestsPerSecond", second.requests_per_second);
  field(json, "intendedRequestsPerSecond", second.intended_requests_per_second);
  field(json, "p50Millis", second.p50_millis);
  field(json, "p99Millis", second.p99_millis);
  field(json, "activeVus", std::uint64_t{second.active_vus});
  field(json, "generatorCpuPercent", second.generator_cpu_percent);
  json.EndObject();
}

}  // namespace

void writeLoadReportJson(std::ostream& out, const LoadSummary& summary) {
  rapidjson::OStreamWrapper stream(out);
  JsonWriter json(stream);
  json.StartObject();
  writeRun(json, summary);
  writeRequests(json, summary);

  field(json, "requestsPerSecond", summary.requests_per_second);
  field(json, "responses", summary.responses);
  field(json, "responsesPerSecond", summary.responses_per_second);
  field(json, "failuresPerSecond", summary.failures_per_second);
  field(json, "nothingAnswered", summary.nothing_answered);
  field(json, "intendedRequestsPerSecond", summary.intended_requests_per_second);
  key(json, "latencyMillis");
  writeLatency(json, summary.latency);
  key(json, "uncorrectedLatencyMillis");
  writeLatency(json, summary.uncorrected_latency);
  field(json, "latenciesClamped", summary.latencies_clamped);

  key(json, "transfer");
  json.StartObject();
  field(json, "bytesSent", summary.bytes_sent);
  field(json, "bytesReceived", summary.bytes_received);
  json.EndObject();
  field(json, "connects", summary.connects);
  field(json, "peakActiveVus", std::uint64_t{summary.peak_active_vus});

  writeGenerator(json, summary);

  key(json, "warnings");
  json.StartArray();
  for (const std::string& warning : summary.warnings) {
    value(json, warning);
  }
  json.EndArray();

  key(json, "snapshots");
  json.StartArray();
  for (const LoadSecondDigest& second : summary.seconds) {
    writeSecond(json, second);
  }
  json.EndArray();
  json.EndObject();
  out << "\n";
}

}  // namespace benchd::results
