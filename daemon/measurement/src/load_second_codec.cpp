#include <benchd/measurement/load_second_codec.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <limits>
#include <utility>

namespace benchd::measurement {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void writeKey(Writer& json, std::string_view name) {
  json.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

void writeHistogram(Writer& json, const LatencyHistogram& histogram) {
  json.StartObject();
  writeKey(json, "layout");
  json.String(LatencyHistogram::kLayout.data(),
              static_cast<rapidjson::SizeType>(LatencyHistogram::kLayout.size()));
  writeKey(json, "count");
  json.Uint64(histogram.count());
  writeKey(json, "min");
  json.Uint64(histogram.min());
  writeKey(json, "max");
  json.Uint64(histogram.max());
  // The exact sum, not the mean: means do not add up.
  writeKey(json, "sum");
  json.Uint64(histogram.sum());
  writeKey(json, "clamped");
  json.Uint64(histogram.clampedCount());
  writeKey(json, "counters");
  json.StartArray();
  histogram.forEachCounter([&json](std::size_t index, std::uint64_t count) {
    json.StartArray();
    json.Uint64(index);
    json.Uint64(count);
    json.EndArray();
  });
  json.EndArray();
  json.EndObject();
}

void writeCounters(Writer& json, const LoadCounters& counters) {
  json.StartObject();
  writeKey(json, "requestsSent");
  json.Uint64(counters.requests_sent);
  writeKey(json, "requestsOk");
  json.Uint64(counters.requests_ok);
  writeKey(json, "errors");
  json.StartObject();
  for (const ErrorClass error_class : kAllErrorClasses) {
    writeKey(json, errorClassName(error_class));
    json.Uint64(counters.errors[error_class]);
  }
  json.EndObject();
  writeKey(json, "requestsRequested");
  json.Uint64(counters.requests_requested);
  writeKey(json, "bytesSent");
  json.Uint64(counters.bytes_sent);
  writeKey(json, "bytesReceived");
  json.Uint64(counters.bytes_received);
  writeKey(json, "connects");
  json.Uint64(counters.connects);
  writeKey(json, "droppedArrivals");
  json.Uint64(counters.dropped_arrivals);
  writeKey(json, "lateArrivals");
  json.Uint64(counters.late_arrivals);
  writeKey(json, "interruptedRequests");
  json.Uint64(counters.interrupted_requests);
  json.EndObject();
}

/// Reads the members of one JSON object, each by its path for the errors ("counters.connects").
class ObjectReader {
 public:
  ObjectReader(const rapidjson::Value& object, std::string path)
      : object_(object), path_(std::move(path)) {
    if (!object_.IsObject()) {
      fail(path_.empty() ? "the second" : path_, "expected an object");
    }
  }

  [[noreturn]] static void fail(const std::string& where, const std::string& why) {
    throw LoadSecondCodecError("load second: " + where + ": " + why);
  }

  [[nodiscard]] std::string pathOf(std::string_view name) const {
    return path_.empty() ? std::string(name) : path_ + "." + std::string(name);
  }

  [[nodiscard]] const rapidjson::Value& member(std::string_view name) const {
    const auto found = object_.FindMember(rapidjson::Value(
        rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))));
    if (found == object_.MemberEnd()) {
      fail(pathOf(name), "missing");
    }
    return found->value;
  }

  [[nodiscard]] std::uint64_t unsignedNumber(
      std::string_view name, std::uint64_t most = std::numeric_limits<std::uint64_t>::max()) const {
    const rapidjson::Value& value = member(name);
    if (!value.IsUint64()) {
      fail(pathOf(name), "expected an unsigned integer");
    }
    if (value.GetUint64() > most) {
      fail(pathOf(name), "expected at most " + std::to_string(most) + ", got " +
                             std::to_string(value.GetUint64()));
    }
    return value.GetUint64();
  }

  [[nodiscard]] std::int64_t signedNumber(std::string_view name) const {
    const rapidjson::Value& value = member(name);
    if (!value.IsInt64()) {
      fail(pathOf(name), "expected an integer");
    }
    return value.GetInt64();
  }

  [[nodiscard]] double finiteNumber(std::string_view name) const {
    const rapidjson::Value& value = member(name);
    if (!value.IsNumber() || !std::isfinite(value.GetDouble()) || value.GetDouble() < 0.0) {
      fail(pathOf(name), "expected a number, at least 0");
    }
    return value.GetDouble();
  }

  [[nodiscard]] std::string_view text(std::string_view name) const {
    const rapidjson::Value& value = member(name);
    if (!value.IsString()) {
      fail(pathOf(name), "expected a string");
    }
    return {value.GetString(), value.GetStringLength()};
  }

  [[nodiscard]] ObjectReader object(std::string_view name) const {
    return {member(name), pathOf(name)};
  }

 private:
  const rapidjson::Value& object_;
  std::string path_;
};

LatencyHistogram readHistogram(const ObjectReader& histogram) {
  const std::string_view layout = histogram.text("layout");
  if (layout != LatencyHistogram::kLayout) {
    ObjectReader::fail(histogram.pathOf("layout"),
                       "'" + std::string(layout) + "' is not this benchd's '" +
                           std::string(LatencyHistogram::kLayout) +
                           "' (install the same benchd version on every host)");
  }
  LatencyHistogram::State state;
  state.count = histogram.unsignedNumber("count");
  state.min = histogram.unsignedNumber("min");
  state.max = histogram.unsignedNumber("max");
  state.sum = histogram.unsignedNumber("sum");
  state.clamped = histogram.unsignedNumber("clamped");
  const rapidjson::Value& counters = histogram.member("counters");
  const std::string where = histogram.pathOf("counters");
  if (!counters.IsArray()) {
    ObjectReader::fail(where, "expected an array of [index, count] pairs");
  }
  for (const rapidjson::Value& pair : counters.GetArray()) {
    if (!pair.IsArray() || pair.Size() != 2 || !pair[0].IsUint64() || !pair[1].IsUint64()) {
      ObjectReader::fail(where, "expected an array of [index, count] pairs");
    }
    state.counters.emplace_back(static_cast<std::size_t>(pair[0].GetUint64()), pair[1].GetUint64());
  }
  try {
    return LatencyHistogram::restore(state);
  } catch (const std::invalid_argument& error) {
    ObjectReader::fail(histogram.pathOf("counters"), error.what());
  }
}

LoadCounters readCounters(const ObjectReader& counters) {
  LoadCounters read;
  read.requests_sent = counters.unsignedNumber("requestsSent");
  read.requests_ok = counters.unsignedNumber("requestsOk");
  const ObjectReader errors = counters.object("errors");
  for (const ErrorClass error_class : kAllErrorClasses) {
    read.errors[error_class] = errors.unsignedNumber(errorClassName(error_class));
  }
  read.requests_requested = counters.unsignedNumber("requestsRequested");
  read.bytes_sent = counters.unsignedNumber("bytesSent");
  read.bytes_received = counters.unsignedNumber("bytesReceived");
  read.connects = counters.unsignedNumber("connects");
  read.dropped_arrivals = counters.unsignedNumber("droppedArrivals");
  read.late_arrivals = counters.unsignedNumber("lateArrivals");
  read.interrupted_requests = counters.unsignedNumber("interruptedRequests");
  return read;
}

}  // namespace

std::string encodeLoadSecond(const NumberedSecond& numbered) {
  const LoadSnapshot& second = numbered.second;
  rapidjson::StringBuffer buffer;
  Writer json(buffer);
  json.StartObject();
  writeKey(json, "sequence");
  json.Uint64(numbered.sequence);
  writeKey(json, "phase");
  const std::string_view phase = phaseKindName(second.phase);
  json.String(phase.data(), static_cast<rapidjson::SizeType>(phase.size()));
  writeKey(json, "index");
  json.Uint(second.index);
  writeKey(json, "startMicros");
  json.Int64(second.start.count());
  writeKey(json, "durationMicros");
  json.Int64(second.duration.count());
  writeKey(json, "endEpochMillis");
  json.Int64(second.end_epoch_millis);
  writeKey(json, "counters");
  writeCounters(json, second.counters);
  writeKey(json, "achievedRequestsPerSecond");
  json.Double(second.achieved_requests_per_second);
  writeKey(json, "intendedRequestsPerSecond");
  json.Double(second.intended_requests_per_second);
  writeKey(json, "activeVus");
  json.Uint(second.active_vus);
  writeKey(json, "peakActiveVus");
  json.Uint(second.peak_active_vus);
  writeKey(json, "generatorCpuPercent");
  json.Double(second.generator_cpu_percent);
  writeKey(json, "generatorCores");
  json.Uint(second.generator_cores);
  writeKey(json, "latency");
  writeHistogram(json, second.latency);
  writeKey(json, "uncorrectedLatency");
  writeHistogram(json, second.uncorrected_latency);
  json.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

NumberedSecond decodeLoadSecond(std::string_view json) {
  rapidjson::Document document;
  // Full precision: RapidJSON's default parse may be a unit in the last place off, and a
  // double must read back to the value written.
  document.Parse<rapidjson::kParseFullPrecisionFlag>(json.data(), json.size());
  if (document.HasParseError()) {
    ObjectReader::fail("the second",
                       "not JSON (at byte " + std::to_string(document.GetErrorOffset()) + ")");
  }
  const ObjectReader second(document, "");
  NumberedSecond read;
  read.sequence = second.unsignedNumber("sequence");
  const std::string_view phase = second.text("phase");
  if (phase == phaseKindName(PhaseKind::kWarmup)) {
    read.second.phase = PhaseKind::kWarmup;
  } else if (phase == phaseKindName(PhaseKind::kTest)) {
    read.second.phase = PhaseKind::kTest;
  } else {
    ObjectReader::fail("phase", "expected 'warmup' or 'test', got '" + std::string(phase) + "'");
  }
  constexpr std::uint64_t kMost32 = std::numeric_limits<std::uint32_t>::max();
  read.second.index = static_cast<std::uint32_t>(second.unsignedNumber("index", kMost32));
  read.second.start = std::chrono::microseconds(second.signedNumber("startMicros"));
  read.second.duration = std::chrono::microseconds(second.signedNumber("durationMicros"));
  read.second.end_epoch_millis = second.signedNumber("endEpochMillis");
  read.second.counters = readCounters(second.object("counters"));
  read.second.achieved_requests_per_second = second.finiteNumber("achievedRequestsPerSecond");
  read.second.intended_requests_per_second = second.finiteNumber("intendedRequestsPerSecond");
  read.second.active_vus = static_cast<std::uint32_t>(second.unsignedNumber("activeVus", kMost32));
  read.second.peak_active_vus =
      static_cast<std::uint32_t>(second.unsignedNumber("peakActiveVus", kMost32));
  read.second.generator_cpu_percent = second.finiteNumber("generatorCpuPercent");
  read.second.generator_cores =
      static_cast<std::uint32_t>(second.unsignedNumber("generatorCores", kMost32));
  read.second.latency = readHistogram(second.object("latency"));
  read.second.uncorrected_latency = readHistogram(second.object("uncorrectedLatency"));
  if (read.second.latency.count() != read.second.counters.requests_requested) {
    ObjectReader::fail("latency.count",
                       "is not counters.requestsRequested (" +
                           std::to_string(read.second.counters.requests_requested) + ")");
  }
  return read;
}

}  // namespace benchd::measurement
