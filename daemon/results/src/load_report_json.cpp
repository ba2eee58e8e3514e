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
  field(json, "open_model", summary.open_model);
  field(json, "connections", std::uint64_t{run.connections});
  field(json, "duration_seconds", std::uint64_t{run.test_seconds});
  field(json, "warmup_seconds", std::uint64_t{run.warmup_seconds});
  key(json, "rate");
  if (run.requests_per_second) {
    json.Uint(*run.requests_per_second);
  } else {
    json.Null();
  }
  key(json, "request_limit");
  if (run.request_limit) {
    json.Uint64(*run.request_limit);
  } else {
    json.Null();
  }
  field(json, "stopped_early", run.stopped_early);
  field(json, "elapsed_seconds", summary.elapsed_seconds);
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
  field(json, "dropped_arrivals", summary.dropped_arrivals);
  field(json, "late_arrivals", summary.late_arrivals);
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
  field(json, "cpu_percent_avg", summary.generator_cpu_percent_avg);
  field(json, "cpu_percent_max", summary.generator_cpu_percent_max);
  field(json, "cpu_seconds", summary.generator_cpu_seconds);
  field(json, "cpu_micros_per_request", summary.generator_cpu_micros_per_request);
  field(json, "saturated", summary.generator_saturated);
  field(json, "saturation_reason", summary.saturation_reason);
  json.EndObject();
}

void writeSecond(JsonWriter& json, const LoadSecondDigest& second) {
  json.StartObject();
  field(json, "index", std::uint64_t{second.index});
  field(json, "start_seconds", second.start_seconds);
  field(json, "duration_seconds", second.duration_seconds);
  field(json, "ok", second.ok);
  field(json, "errors", second.errors);
  field(json, "requested", second.requested);
  field(json, "dropped_arrivals", second.dropped_arrivals);
  field(json, "requests_per_second", second.requests_per_second);
  field(json, "intended_requests_per_second", second.intended_requests_per_second);
  field(json, "p50_ms", second.p50_millis);
  field(json, "p99_ms", second.p99_millis);
  field(json, "active_vus", std::uint64_t{second.active_vus});
  field(json, "generator_cpu_percent", second.generator_cpu_percent);
  json.EndObject();
}

}  // namespace

void writeLoadReportJson(std::ostream& out, const LoadSummary& summary) {
  rapidjson::OStreamWrapper stream(out);
  JsonWriter json(stream);
  json.StartObject();
  writeRun(json, summary);
  writeRequests(json, summary);

  field(json, "requests_per_second", summary.requests_per_second);
  field(json, "responses", summary.responses);
  field(json, "responses_per_second", summary.responses_per_second);
  field(json, "failures_per_second", summary.failures_per_second);
  field(json, "nothing_answered", summary.nothing_answered);
  field(json, "intended_requests_per_second", summary.intended_requests_per_second);
  key(json, "latency_ms");
  writeLatency(json, summary.latency);
  key(json, "uncorrected_latency_ms");
  writeLatency(json, summary.uncorrected_latency);
  field(json, "latencies_clamped", summary.latencies_clamped);

  key(json, "transfer");
  json.StartObject();
  field(json, "bytes_sent", summary.bytes_sent);
  field(json, "bytes_received", summary.bytes_received);
  json.EndObject();
  field(json, "connects", summary.connects);
  field(json, "peak_active_vus", std::uint64_t{summary.peak_active_vus});

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
