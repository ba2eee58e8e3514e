#include <benchd/common/json_writing.hpp>
#include <benchd/runner/stored_request.hpp>

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <limits>

namespace benchd::runner {
namespace {

using common::field;
using common::key;

constexpr std::uint64_t kStoredRequestVersion = 1;

template <typename Writer>
void writeCpus(Writer& json, std::string_view name, const std::vector<unsigned>& cpus) {
  key(json, name);
  json.StartArray();
  for (const unsigned cpu : cpus) {
    json.Uint(cpu);
  }
  json.EndArray();
}

[[noreturn]] void malformed(std::string_view member, std::string_view reason) {
  throw StoredRequestError("stored run request: '" + std::string(member) + "' " +
                           std::string(reason));
}

const rapidjson::Value* memberOf(const rapidjson::Value& object, const char* name, bool required) {
  const auto found = object.FindMember(name);
  if (found == object.MemberEnd()) {
    if (required) {
      malformed(name, "is missing");
    }
    return nullptr;
  }
  return &found->value;
}

std::string textOf(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = memberOf(object, name, true);
  if (!value->IsString()) {
    malformed(name, "is not a string");
  }
  return {value->GetString(), value->GetStringLength()};
}

std::uint64_t unsignedOf(const rapidjson::Value& value, const char* name, std::uint64_t max) {
  if (!value.IsUint64() || value.GetUint64() > max) {
    malformed(name, "is not an integer from 0 to " + std::to_string(max));
  }
  return value.GetUint64();
}

std::uint32_t countOf(const rapidjson::Value& object, const char* name) {
  return static_cast<std::uint32_t>(
      unsignedOf(*memberOf(object, name, true), name, std::numeric_limits<std::uint32_t>::max()));
}

std::optional<std::uint32_t> optionalCountOf(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = memberOf(object, name, false);
  if (value == nullptr) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(
      unsignedOf(*value, name, std::numeric_limits<std::uint32_t>::max()));
}

bool flagOf(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = memberOf(object, name, true);
  if (!value->IsBool()) {
    malformed(name, "is not true or false");
  }
  return value->GetBool();
}

std::vector<std::string> textsOf(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = memberOf(object, name, true);
  if (!value->IsArray()) {
    malformed(name, "is not an array");
  }
  std::vector<std::string> texts;
  for (const rapidjson::Value& item : value->GetArray()) {
    if (!item.IsString()) {
      malformed(name, "holds something other than strings");
    }
    texts.emplace_back(item.GetString(), item.GetStringLength());
  }
  return texts;
}

std::vector<unsigned> cpusOf(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value* value = memberOf(object, name, true);
  if (!value->IsArray()) {
    malformed(name, "is not an array");
  }
  std::vector<unsigned> cpus;
  for (const rapidjson::Value& item : value->GetArray()) {
    cpus.push_back(
        static_cast<unsigned>(unsignedOf(item, name, std::numeric_limits<unsigned>::max())));
  }
  return cpus;
}

}  // namespace

std::string storedRequestJson(const RunRequest& request) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> json(buffer);
  json.StartObject();
  field(json, "version", kStoredRequestVersion);
  field(json, "scenarioFile", request.scenario_file);
  key(json, "approaches");
  json.StartArray();
  for (const std::string& approach : request.approaches) {
    common::value(json, approach);
  }
  json.EndArray();
  if (request.aa_approach) {
    field(json, "aaApproach", *request.aa_approach);
  }
  field(json, "repeats", std::uint64_t{request.repeats});
  if (request.order_seed) {
    // As text: a JSON reader may keep numbers as doubles, which lose a 64-bit seed's low bits.
    field(json, "orderSeed", std::to_string(*request.order_seed));
  }
  field(json, "winnerRule", request.winner_rule);
  if (request.overrides.warmup_seconds) {
    field(json, "warmupSeconds", std::uint64_t{*request.overrides.warmup_seconds});
  }
  if (request.overrides.test_seconds) {
    field(json, "testSeconds", std::uint64_t{*request.overrides.test_seconds});
  }
  field(json, "keepCsv", request.keep_csv);
  field(json, "cpus", request.cpus);
  writeCpus(json, "serverCpus", request.server_cpus);
  writeCpus(json, "generatorCpus", request.generator_cpus);
  if (request.generator_threads) {
    field(json, "generatorThreads", std::uint64_t{*request.generator_threads});
  }
  field(json, "healthTimeoutSeconds",
        static_cast<std::uint64_t>(std::max<std::int64_t>(0, request.health_timeout.count())));
  if (request.memory_cap_bytes) {
    field(json, "memoryCapBytes", *request.memory_cap_bytes);
  }
  if (request.capacity_resolution_percent) {
    json.Key("capacityResolutionPercent");
    json.Double(*request.capacity_resolution_percent);
  }
  json.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

RunRequest requestFromStoredJson(std::string_view text) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError() || !document.IsObject()) {
    throw StoredRequestError("stored run request: not a JSON object");
  }
  const std::uint64_t version = unsignedOf(*memberOf(document, "version", true), "version",
                                           std::numeric_limits<std::uint32_t>::max());
  if (version != kStoredRequestVersion) {
    throw StoredRequestError("stored run request of version " + std::to_string(version) +
                             ", which this benchd does not read (it reads version " +
                             std::to_string(kStoredRequestVersion) + ")");
  }
  RunRequest request;
  request.scenario_file = textOf(document, "scenarioFile");
  request.approaches = textsOf(document, "approaches");
  if (memberOf(document, "aaApproach", false) != nullptr) {
    request.aa_approach = textOf(document, "aaApproach");
  }
  request.repeats = countOf(document, "repeats");
  if (memberOf(document, "orderSeed", false) != nullptr) {
    const std::string seed = textOf(document, "orderSeed");
    std::uint64_t parsed = 0;
    const auto [end, error] = std::from_chars(seed.data(), seed.data() + seed.size(), parsed);
    if (error != std::errc() || end != seed.data() + seed.size()) {
      malformed("orderSeed", "is not a decimal 64-bit number");
    }
    request.order_seed = parsed;
  }
  request.winner_rule = textOf(document, "winnerRule");
  request.overrides.warmup_seconds = optionalCountOf(document, "warmupSeconds");
  request.overrides.test_seconds = optionalCountOf(document, "testSeconds");
  request.keep_csv = flagOf(document, "keepCsv");
  request.cpus = textOf(document, "cpus");
  request.server_cpus = cpusOf(document, "serverCpus");
  request.generator_cpus = cpusOf(document, "generatorCpus");
  request.generator_threads = optionalCountOf(document, "generatorThreads");
  request.health_timeout = std::chrono::seconds(countOf(document, "healthTimeoutSeconds"));
  if (const rapidjson::Value* cap = memberOf(document, "memoryCapBytes", false)) {
    request.memory_cap_bytes =
        unsignedOf(*cap, "memoryCapBytes", std::numeric_limits<std::uint64_t>::max());
  }
  if (const rapidjson::Value* resolution = memberOf(document, "capacityResolutionPercent", false)) {
    if (!resolution->IsNumber()) {
      malformed("capacityResolutionPercent", "is not a number");
    }
    request.capacity_resolution_percent = resolution->GetDouble();
  }
  return request;
}

}  // namespace benchd::runner
