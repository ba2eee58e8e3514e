#include <benchd/common/json_writing.hpp>
#include <benchd/measurement/load_second_codec.hpp>

#include <rapidjson/document.h>

#include <cmath>
#include <limits>
#include <utility>

namespace benchd::measurement {
namespace {

using common::field;
using common::key;
using Writer = common::JsonWriter;

void writeHistogram(Writer& json, const LatencyHistogram& histogram) {
  json.StartObject();
  field(json, "layout", LatencyHistogram::kLayout);
  field(json, "count", histogram.count());
  field(json, "min", histogram.min());
  field(json, "max", histogram.max());
  // The exact sum, not the mean: means do not add up.
  field(json, "sum", histogram.sum());
  field(json, "clamped", histogram.clampedCount());
  key(json, "counters");
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
  field(json, "requestsSent", counters.requests_sent);
  field(json, "requestsOk", counters.requests_ok);
  key(json, "errors");
  json.StartObject();
  for (const ErrorClass error_class : kAllErrorClasses) {
    field(json, errorClassName(error_class), counters.errors[error_class]);
  }
  json.EndObject();
  field(json, "requestsRequested", counters.requests_requested);
  field(json, "bytesSent", counters.bytes_sent);
  field(json, "bytesReceived", counters.bytes_received);
  field(json, "connects", counters.connects);
  field(json, "droppedArrivals", counters.dropped_arrivals);
  field(json, "lateArrivals", counters.late_arrivals);
  field(json, "interruptedRequests", counters.interrupted_requests);
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
  field(json, "sequence", numbered.sequence);
  field(json, "phase", phaseKindName(second.phase));
  field(json, "index", std::uint64_t{second.index});
  field(json, "startMicros", std::int64_t{second.start.count()});
  field(json, "durationMicros", std::int64_t{second.duration.count()});
  field(json, "endEpochMillis", second.end_epoch_millis);
  key(json, "counters");
  writeCounters(json, second.counters);
  field(json, "achievedRequestsPerSecond", second.achieved_requests_per_second);
  field(json, "intendedRequestsPerSecond", second.intended_requests_per_second);
  field(json, "activeVus", std::uint64_t{second.active_vus});
  field(json, "peakActiveVus", std::uint64_t{second.peak_active_vus});
  field(json, "generatorCpuPercent", second.generator_cpu_percent);
  field(json, "generatorCores", std::uint64_t{second.generator_cores});
  key(json, "latency");
  writeHistogram(json, second.latency);
  key(json, "uncorrectedLatency");
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
