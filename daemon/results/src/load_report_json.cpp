#include <benchd/results/load_report_json.hpp>

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/writer.h>

#include <ostream>
#include <string>
#include <string_view>

namespace benchd::results {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::OStreamWrapper>;

void writeString(JsonWriter& json, std::string_view text) {
  json.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void writeKey(JsonWriter& json, std::string_view key) {
  json.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
}

void writeLatency(JsonWriter& json, const LoadLatency& latency) {
  json.StartObject();
  json.Key("count");
  json.Uint64(latency.count);
  json.Key("min");
  json.Double(latency.min);
  json.Key("p50");
  json.Double(latency.p50);
  json.Key("p75");
  json.Double(latency.p75);
  json.Key("p90");
  json.Double(latency.p90);
  json.Key("p99");
  json.Double(latency.p99);
  json.Key("p999");
  json.Double(latency.p999);
  json.Key("max");
  json.Double(latency.max);
  json.Key("mean");
  json.Double(latency.mean);
  json.EndObject();
}

void writeRun(JsonWriter& json, const LoadSummary& summary) {
  const LoadRunDescription& run = summary.run;
  json.Key("workload");
  writeString(json, run.workload);
  json.Key("url");
  writeString(json, run.target);
  json.Key("approach");
  writeString(json, run.approach);
  json.Key("open_model");
  json.Bool(summary.open_model);
  json.Key("connections");
  json.Uint(run.connections);
  json.Key("duration_seconds");
  json.Uint(run.test_seconds);
  json.Key("warmup_seconds");
  json.Uint(run.warmup_seconds);
  json.Key("rate");
  if (run.requests_per_second) {
    json.Uint(*run.requests_per_second);
  } else {
    json.Null();
  }
  json.Key("request_limit");
  if (run.request_limit) {
    json.Uint64(*run.request_limit);
  } else {
    json.Null();
  }
  json.Key("stopped_early");
  json.Bool(run.stopped_early);
  json.Key("elapsed_seconds");
  json.Double(summary.elapsed_seconds);
}

void writeRequests(JsonWriter& json, const LoadSummary& summary) {
  json.Key("requests");
  json.StartObject();
  json.Key("sent");
  json.Uint64(summary.requests_sent);
  json.Key("completed");
  json.Uint64(summary.requests_completed);
  json.Key("ok");
  json.Uint64(summary.requests_ok);
  json.Key("errors");
  json.Uint64(summary.requests_errors);
  json.Key("requested");
  json.Uint64(summary.requests_requested);
  json.Key("interrupted");
  json.Uint64(summary.requests_interrupted);
  json.Key("dropped_arrivals");
  json.Uint64(summary.dropped_arrivals);
  json.Key("late_arrivals");
  json.Uint64(summary.late_arrivals);
  json.EndObject();

  json.Key("errors");
  json.StartObject();
  for (const ErrorClassCount& error_class : summary.errors_by_class) {
    writeKey(json, error_class.name);
    json.Uint64(error_class.count);
  }
  json.EndObject();
}

void writeGenerator(JsonWriter& json, const LoadSummary& summary) {
  json.Key("generator");
  json.StartObject();
  json.Key("threads");
  json.Uint(summary.generator_threads);
  json.Key("cores");
  json.Uint(summary.generator_cores);
  json.Key("cpu_percent_avg");
  json.Double(summary.generator_cpu_percent_avg);
  json.Key("cpu_percent_max");
  json.Double(summary.generator_cpu_percent_max);
  json.Key("cpu_seconds");
  json.Double(summary.generator_cpu_seconds);
  json.Key("cpu_micros_per_request");
  json.Double(summary.generator_cpu_micros_per_request);
  json.Key("saturated");
  json.Bool(summary.generator_saturated);
  json.Key("saturation_reason");
  writeString(json, summary.saturation_reason);
  json.EndObject();
}

void writeSecond(JsonWriter& json, const LoadSecondDigest& second) {
  json.StartObject();
  json.Key("index");
  json.Uint(second.index);
  json.Key("start_seconds");
  json.Double(second.start_seconds);
  json.Key("duration_seconds");
  json.Double(second.duration_seconds);
  json.Key("ok");
  json.Uint64(second.ok);
  json.Key("errors");
  json.Uint64(second.errors);
  json.Key("requested");
  json.Uint64(second.requested);
  json.Key("dropped_arrivals");
  json.Uint64(second.dropped_arrivals);
  json.Key("requests_per_second");
  json.Double(second.requests_per_second);
  json.Key("intended_requests_per_second");
  json.Double(second.intended_requests_per_second);
  json.Key("p50_ms");
  json.Double(second.p50_millis);
  json.Key("p99_ms");
  json.Double(second.p99_millis);
  json.Key("active_vus");
  json.Uint(second.active_vus);
  json.Key("generator_cpu_percent");
  json.Double(second.generator_cpu_percent);
  json.EndObject();
}

}  // namespace

void writeLoadReportJson(std::ostream& out, const LoadSummary& summary) {
  rapidjson::OStreamWrapper stream(out);
  JsonWriter json(stream);
  json.StartObject();
  writeRun(json, summary);
  writeRequests(json, summary);

  json.Key("requests_per_second");
  json.Double(summary.requests_per_second);
  json.Key("responses");
  json.Uint64(summary.responses);
  json.Key("responses_per_second");
  json.Double(summary.responses_per_second);
  json.Key("failures_per_second");
  json.Double(summary.failures_per_second);
  json.Key("nothing_answered");
  json.Bool(summary.nothing_answered);
  json.Key("intended_requests_per_second");
  json.Double(summary.intended_requests_per_second);
  json.Key("latency_ms");
  writeLatency(json, summary.latency);
  json.Key("uncorrected_latency_ms");
  writeLatency(json, summary.uncorrected_latency);
  json.Key("latencies_clamped");
  json.Uint64(summary.latencies_clamped);

  json.Key("transfer");
  json.StartObject();
  json.Key("bytes_sent");
  json.Uint64(summary.bytes_sent);
  json.Key("bytes_received");
  json.Uint64(summary.bytes_received);
  json.EndObject();
  json.Key("connects");
  json.Uint64(summary.connects);
  json.Key("peak_active_vus");
  json.Uint(summary.peak_active_vus);

  writeGenerator(json, summary);

  json.Key("warnings");
  json.StartArray();
  for (const std::string& warning : summary.warnings) {
    writeString(json, warning);
  }
  json.EndArray();

  json.Key("snapshots");
  json.StartArray();
  for (const LoadSecondDigest& second : summary.seconds) {
    writeSecond(json, second);
  }
  json.EndArray();
  json.EndObject();
  out << "\n";
}

}  // namespace benchd::results
