#include "load_report.hpp"

#include <benchd/loadgen/error_class.hpp>

#include <rapidjson/ostreamwrapper.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

namespace benchd::cli {
namespace {

using loadgen::LatencyHistogram;
using loadgen::PhaseResult;

bool isOpenModel(const scenario::Workload& workload) {
  for (const scenario::SubScenario& sub : workload.sub_scenarios) {
    if (scenario::isArrivalRate(sub.executor)) {
      return true;
    }
  }
  return false;
}

std::string millis(std::uint64_t micros) {
  std::ostringstream text;
  const double value = static_cast<double>(micros) / 1000.0;
  text << std::fixed << std::setprecision(value < 10.0 ? 3 : (value < 1000.0 ? 2 : 1)) << value
       << " ms";
  return text.str();
}

std::string mebibytes(std::uint64_t bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << static_cast<double>(bytes) / (1024.0 * 1024.0)
       << " MiB";
  return text.str();
}

double seconds(const PhaseResult& test) {
  return std::max(1e-9, static_cast<double>(test.duration.count()) / 1e6);
}

double cpuMicrosPerRequest(const PhaseResult& test) {
  const std::uint64_t completed = test.totals.requestsCompleted();
  return completed == 0 ? 0.0
                        : static_cast<double>(test.generator_cpu_time.count()) /
                              static_cast<double>(completed);
}

std::string percentileLine(const LatencyHistogram& histogram) {
  if (histogram.count() == 0) {
    return "no samples";
  }
  return "min " + millis(histogram.min()) + "  p50 " + millis(histogram.valueAtPercentile(50)) +
         "  p90 " + millis(histogram.valueAtPercentile(90)) + "  p99 " +
         millis(histogram.valueAtPercentile(99)) + "  max " + millis(histogram.max());
}

using JsonWriter = rapidjson::Writer<rapidjson::OStreamWrapper>;

void writeLatency(JsonWriter& json, const LatencyHistogram& histogram) {
  json.StartObject();
  json.Key("count");
  json.Uint64(histogram.count());
  const auto value = [&](const char* key, std::uint64_t micros) {
    json.Key(key);
    json.Double(static_cast<double>(micros) / 1000.0);
  };
  value("min", histogram.min());
  value("p50", histogram.valueAtPercentile(50));
  value("p90", histogram.valueAtPercentile(90));
  value("p99", histogram.valueAtPercentile(99));
  value("p999", histogram.valueAtPercentile(99.9));
  value("max", histogram.max());
  json.Key("mean");
  json.Double(histogram.mean() / 1000.0);
  json.EndObject();
}

}  // namespace

SnapshotDigest SnapshotDigest::of(const loadgen::LoadSnapshot& snapshot) {
  SnapshotDigest digest;
  digest.index = snapshot.index;
  digest.start_seconds = static_cast<double>(snapshot.start.count()) / 1e6;
  digest.duration_seconds = static_cast<double>(snapshot.duration.count()) / 1e6;
  digest.ok = snapshot.counters.requests_ok;
  digest.errors = snapshot.counters.errors.total();
  digest.requested = snapshot.counters.requests_requested;
  digest.dropped = snapshot.counters.dropped_arrivals;
  digest.achieved_requests_per_second = snapshot.achieved_requests_per_second;
  digest.intended_requests_per_second = snapshot.intended_requests_per_second;
  digest.p50_micros = snapshot.latency.valueAtPercentile(50);
  digest.p99_micros = snapshot.latency.valueAtPercentile(99);
  digest.active_vus = snapshot.active_vus;
  digest.generator_cpu_percent = snapshot.generator_cpu_percent;
  return digest;
}

void writeTextReport(std::ostream& out, const LoadReport& report) {
  const LoadOptions& options = report.options;
  const PhaseResult& test = report.test;
  const loadgen::LoadCounters& totals = test.totals;
  const bool open_model = isOpenModel(report.workload);
  out << std::fixed << std::setprecision(1);
  out << "benchd load: workload " << report.workload.name << " against " << options.url
      << " (approach " << options.approach << ")\n";
  out << "  " << options.connections << " connections, " << options.duration_seconds << " s test, "
      << options.warmup_seconds << " s warm-up, ";
  if (options.rate) {
    out << (open_model ? "arrival rate " : "rate cap ") << *options.rate << " req/s, ";
  } else {
    out << "no rate, ";
  }
  out << test.generator_threads << (test.generator_threads == 1 ? " thread" : " threads")
      << ", depth " << options.delay_call_depth << ", delay " << options.delay_millis << " ms"
      << (report.stopped_early ? " (stopped early)" : "") << "\n\n";

  out << "  requests     " << totals.requestsCompleted() << " completed: " << totals.requests_ok
      << " ok, " << totals.errors.total() << " errors (" << totals.requests_sent << " sent, "
      << totals.interrupted_requests << " interrupted)\n";
  out << "  errors       ";
  if (totals.errors.total() == 0) {
    out << "none";
  } else {
    bool first = true;
    for (const loadgen::ErrorClass error_class : loadgen::kAllErrorClasses) {
      if (totals.errors[error_class] > 0) {
        out << (first ? "" : ", ") << loadgen::errorClassName(error_class) << " "
            << totals.errors[error_class];
        first = false;
      }
    }
  }
  out << "\n";
  out << "  throughput   " << test.achieved_requests_per_second << " req/s";
  if (test.intended_requests_per_second > 0.0) {
    out << " (intended " << test.intended_requests_per_second << " req/s)";
  }
  out << " over " << std::setprecision(2) << seconds(test) << " s\n" << std::setprecision(1);
  out << "  latency      " << percentileLine(test.latency)
      << (open_model ? "   (from the intended send time)" : "") << "\n";
  if (open_model) {
    out << "  uncorrected  " << percentileLine(test.uncorrected_latency)
        << "   (from the actual send)\n";
    out << "  arrivals     " << totals.dropped_arrivals << " dropped, " << totals.late_arrivals
        << " sent late\n";
  }
  out << "  transfer     " << mebibytes(totals.bytes_sent) << " sent, "
      << mebibytes(totals.bytes_received) << " received ("
      << mebibytes(
             static_cast<std::uint64_t>(static_cast<double>(totals.bytes_received) / seconds(test)))
      << "/s in)\n";
  out << "  connections  " << totals.connects << " connects, " << test.peak_active_vus
      << " peak active\n";
  out << std::setprecision(0) << "  generator    CPU " << test.generator_cpu_percent_avg
      << " % avg, " << test.generator_cpu_percent_max << " % max of " << test.generator_cores
      << (test.generator_cores == 1 ? " core" : " cores") << std::setprecision(2) << ", "
      << cpuMicrosPerRequest(test) << " us/request\n";
  out << "  saturation   "
      << (test.generator_saturated ? "SATURATED: " + test.saturation_reason : "no") << "\n";
  for (const std::string& warning : test.warnings) {
    out << "  warning      " << warning << "\n";
  }
}

void writeJsonReport(std::ostream& out, const LoadReport& report) {
  const LoadOptions& options = report.options;
  const PhaseResult& test = report.test;
  const loadgen::LoadCounters& totals = test.totals;
  rapidjson::OStreamWrapper stream(out);
  JsonWriter json(stream);
  json.StartObject();
  json.Key("workload");
  json.String(report.workload.name.c_str());
  json.Key("url");
  json.String(options.url.c_str());
  json.Key("approach");
  json.String(options.approach.c_str());
  json.Key("open_model");
  json.Bool(isOpenModel(report.workload));
  json.Key("connections");
  json.Uint(options.connections);
  json.Key("duration_seconds");
  json.Uint(options.duration_seconds);
  json.Key("warmup_seconds");
  json.Uint(options.warmup_seconds);
  json.Key("rate");
  if (options.rate) {
    json.Uint(*options.rate);
  } else {
    json.Null();
  }
  json.Key("stopped_early");
  json.Bool(report.stopped_early);
  json.Key("elapsed_seconds");
  json.Double(seconds(test));

  json.Key("requests");
  json.StartObject();
  json.Key("sent");
  json.Uint64(totals.requests_sent);
  json.Key("completed");
  json.Uint64(totals.requestsCompleted());
  json.Key("ok");
  json.Uint64(totals.requests_ok);
  json.Key("errors");
  json.Uint64(totals.errors.total());
  json.Key("requested");
  json.Uint64(totals.requests_requested);
  json.Key("interrupted");
  json.Uint64(totals.interrupted_requests);
  json.Key("dropped_arrivals");
  json.Uint64(totals.dropped_arrivals);
  json.Key("late_arrivals");
  json.Uint64(totals.late_arrivals);
  json.EndObject();

  json.Key("errors");
  json.StartObject();
  for (const loadgen::ErrorClass error_class : loadgen::kAllErrorClasses) {
    const std::string name(loadgen::errorClassName(error_class));
    json.Key(name.c_str());
    json.Uint64(totals.errors[error_class]);
  }
  json.EndObject();

  json.Key("requests_per_second");
  json.Double(test.achieved_requests_per_second);
  json.Key("intended_requests_per_second");
  json.Double(test.intended_requests_per_second);
  json.Key("latency_ms");
  writeLatency(json, test.latency);
  json.Key("uncorrected_latency_ms");
  writeLatency(json, test.uncorrected_latency);

  json.Key("transfer");
  json.StartObject();
  json.Key("bytes_sent");
  json.Uint64(totals.bytes_sent);
  json.Key("bytes_received");
  json.Uint64(totals.bytes_received);
  json.EndObject();
  json.Key("connects");
  json.Uint64(totals.connects);
  json.Key("peak_active_vus");
  json.Uint(test.peak_active_vus);

  json.Key("generator");
  json.StartObject();
  json.Key("threads");
  json.Uint(test.generator_threads);
  json.Key("cores");
  json.Uint(test.generator_cores);
  json.Key("cpu_percent_avg");
  json.Double(test.generator_cpu_percent_avg);
  json.Key("cpu_percent_max");
  json.Double(test.generator_cpu_percent_max);
  json.Key("cpu_seconds");
  json.Double(static_cast<double>(test.generator_cpu_time.count()) / 1e6);
  json.Key("cpu_micros_per_request");
  json.Double(cpuMicrosPerRequest(test));
  json.Key("saturated");
  json.Bool(test.generator_saturated);
  json.Key("saturation_reason");
  json.String(test.saturation_reason.c_str());
  json.EndObject();

  json.Key("warnings");
  json.StartArray();
  for (const std::string& warning : test.warnings) {
    json.String(warning.c_str());
  }
  json.EndArray();

  json.Key("snapshots");
  json.StartArray();
  for (const SnapshotDigest& digest : report.snapshots) {
    json.StartObject();
    json.Key("index");
    json.Uint(digest.index);
    json.Key("start_seconds");
    json.Double(digest.start_seconds);
    json.Key("duration_seconds");
    json.Double(digest.duration_seconds);
    json.Key("ok");
    json.Uint64(digest.ok);
    json.Key("errors");
    json.Uint64(digest.errors);
    json.Key("requested");
    json.Uint64(digest.requested);
    json.Key("dropped_arrivals");
    json.Uint64(digest.dropped);
    json.Key("requests_per_second");
    json.Double(digest.achieved_requests_per_second);
    json.Key("intended_requests_per_second");
    json.Double(digest.intended_requests_per_second);
    json.Key("p50_ms");
    json.Double(static_cast<double>(digest.p50_micros) / 1000.0);
    json.Key("p99_ms");
    json.Double(static_cast<double>(digest.p99_micros) / 1000.0);
    json.Key("active_vus");
    json.Uint(digest.active_vus);
    json.Key("generator_cpu_percent");
    json.Double(digest.generator_cpu_percent);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  out << "\n";
}

}  // namespace benchd::cli
