#include "run_event_json.hpp"

#include <benchd/loadgen/error_class.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace benchd::control {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

constexpr double kMebibyte = 1024.0 * 1024.0;

void field(Writer& json, const char* name, double value) {
  json.Key(name);
  json.Double(value);
}

void field(Writer& json, const char* name, std::uint64_t value) {
  json.Key(name);
  json.Uint64(value);
}

void field(Writer& json, const char* name, std::string_view value) {
  json.Key(name);
  json.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void where(Writer& json, const runner::Progress& progress) {
  field(json, "row", std::uint64_t{progress.row_number});
  field(json, "rows", std::uint64_t{progress.row_count});
  field(json, "scenario", progress.scenario);
  field(json, "approach", progress.approach);
  field(json, "approachNumber", std::uint64_t{progress.approach_number});
  field(json, "approaches", std::uint64_t{progress.approach_count});
  field(json, "step", runner::runStepName(progress.step));
  field(json, "phaseElapsedSeconds", progress.phase_elapsed_seconds);
  field(json, "phaseSeconds", progress.phase_seconds);
  field(json, "runElapsedSeconds", progress.run_elapsed_seconds);
  field(json, "runRemainingSeconds", progress.run_remaining_seconds);
}

}  // namespace

std::string phaseEventJson(const runner::Progress& progress) {
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  where(json, progress);
  json.EndObject();
  return buffer.GetString();
}

std::string snapshotEventJson(const runner::Progress& progress,
                              const results::SecondRecord& second) {
  const results::LoadSecond& load = second.load;
  const results::SystemSample& system = second.system;
  const double seconds = std::max(1e-6, static_cast<double>(load.duration_micros) / 1e6);
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  where(json, progress);
  field(json, "second", std::uint64_t{load.index});
  json.Key("requestsPerSecond");
  json.StartObject();
  field(json, "ok", static_cast<double>(load.counters.requests_ok) / seconds);
  field(json, "failed", static_cast<double>(load.counters.errors.total()) / seconds);
  field(json, "intended", load.intended_requests_per_second);
  json.EndObject();
  json.Key("latencyMillis");
  json.StartObject();
  field(json, "p50", load.latency.p50);
  field(json, "p90", load.latency.p90);
  field(json, "p99", load.latency.p99);
  field(json, "max", load.latency.max);
  json.EndObject();
  json.Key("errors");
  json.StartObject();
  for (const loadgen::ErrorClass error_class : loadgen::kAllErrorClasses) {
    const std::string name(loadgen::errorClassName(error_class));
    field(json, name.c_str(), load.counters.errors[error_class]);
  }
  json.EndObject();
  json.Key("host");
  json.StartObject();
  field(json, "cpuUserPercent", system.host.cpu_user_percent);
  field(json, "cpuSystemPercent", system.host.cpu_system_percent);
  field(json, "cpuIowaitPercent", system.host.cpu_iowait_percent);
  field(json, "ramUsedPercent", system.host.ram_used_percent);
  field(json, "tcpSockets", system.host.tcp_sockets_in_use);
  field(json, "loopbackBytes", system.host.loopback_rx_bytes + system.host.loopback_tx_bytes);
  json.EndObject();
  json.Key("worker");
  json.StartObject();
  field(json, "cpuPercent", system.worker.cpu_percent);
  field(json, "rssMiB", static_cast<double>(system.worker.rss_bytes) / kMebibyte);
  field(
      json, "heapMiB",
      system.worker_stats ? static_cast<double>(system.worker_stats->heap_bytes) / kMebibyte : 0.0);
  field(json, "threads", system.worker.threads);
  field(json, "openFds", system.worker.open_fds);
  json.EndObject();
  field(json, "generatorCpuPercent", system.generator.cpu_percent);
  json.EndObject();
  return buffer.GetString();
}

std::string rowEventJson(const results::SummaryRow& row) {
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  field(json, "scenario", row.scenario);
  field(json, "approach", row.approach);
  json.Key("failed");
  json.Bool(row.failed);
  field(json, "failureReason", row.failure_reason);
  json.Key("metrics");
  json.StartObject();
  for (std::size_t index = 0; index < results::kMetricCount; ++index) {
    const std::string name(results::kMetricNames[index]);
    field(json, name.c_str(), row.metrics[index]);
  }
  json.EndObject();
  json.EndObject();
  return buffer.GetString();
}

std::string endEventJson(std::string_view status, const std::string& error) {
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  field(json, "status", status);
  field(json, "error", error);
  json.EndObject();
  return buffer.GetString();
}

}  // namespace benchd::control
