#include "json_fields.hpp"
#include "text_fields.hpp"

#include <benchd/scenario/json_nesting.hpp>
#include <benchd/scenario/path_template.hpp>
#include <benchd/scenario/phase_limits.hpp>
#include <benchd/scenario/workload_file.hpp>
#include <benchd/scenario/workload_file_error.hpp>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

namespace benchd::scenario {
namespace {

using rapidjson::Value;

constexpr std::string_view kFractionExpectation = "a number between 0 and 1";
/// Longest accepted think time, graceful stop and ramp-down: no wait inside a phase may be
/// longer than a phase may be.
constexpr double kMaxSeconds = kMaxPhaseSeconds;
constexpr unsigned kMaxStageCycles = 10'000;
constexpr std::size_t kMaxSubScenarios = 64;
/// Stage durations may add up to 1 within this much (they are written as decimal fractions).
constexpr double kDurationSumTolerance = 1e-6;

constexpr std::array<std::string_view, 7> kMethods = {"GET",    "HEAD",  "POST",   "PUT",
                                                      "DELETE", "PATCH", "OPTIONS"};
/// Headers the load generator sets itself.
constexpr std::array<std::string_view, 5> kReservedHeaders = {"content-length", "transfer-encoding",
                                                              "host", "connection", "keep-alive"};

std::chrono::milliseconds toMillis(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

bool isNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

/// RFC 9110 token characters.
bool isTokenCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

std::string lowercase(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return result;
}

double readSeconds(const Value& value, const JsonPath& path) {
  return readNumber(value, path, 0.0, kMaxSeconds,
                    "a number of seconds between 0 and " + std::to_string(kMaxPhaseSeconds));
}

std::vector<HttpHeader> readHeaders(const Value& value, const JsonPath& path) {
  const ObjectFields fields(value, path);  // checks object-ness and duplicates
  std::vector<HttpHeader> headers;
  for (const auto& member : value.GetObject()) {
    const std::string_view name = stringView(member.name);
    const JsonPath header_path = path.field(name);
    if (name.empty() || !std::all_of(name.begin(), name.end(), isTokenCharacter)) {
      failAt(header_path, "not a valid HTTP header name");
    }
    const std::string lower = lowercase(name);
    if (std::find(kReservedHeaders.begin(), kReservedHeaders.end(), lower) !=
        kReservedHeaders.end()) {
      failAt(header_path, "set by the load generator, not by the workload");
    }
    const std::string header_value = readString(member.value, header_path);
    if (std::any_of(header_value.begin(), header_value.end(), [](char c) {
          const auto code = static_cast<unsigned char>(c);
          return (code < 0x20 && c != '\t') || code == 0x7f;
        })) {
      failAt(header_path, "a header value may not contain control characters");
    }
    headers.push_back({std::string(name), header_value});
  }
  return headers;
}

/// The body as sent: a .json file is re-serialised compactly (like the original's
/// JSON.stringify of the parsed file), anything else is sent byte for byte.
std::string readBody(const std::filesystem::path& file, const JsonPath& path) {
  std::string content;
  try {
    content = readWholeFile(file);
  } catch (const std::runtime_error& error) {
    failAt(path, "cannot read '" + file.string() + "': " + error.what());
  }
  if (file.extension() != ".json") {
    return content;
  }
  // Re-serialising walks the document recursively: no body nests deeper than any real one.
  constexpr int kMaxBodyDepth = 64;
  if (nestsDeeperThan(content, kMaxBodyDepth)) {
    failAt(path, "'" + file.string() + "' nests arrays and objects more than " +
                     std::to_string(kMaxBodyDepth) + " deep");
  }
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
      content.data(), content.size());
  if (document.HasParseError()) {
    failAt(path, "'" + file.string() + "' is not valid JSON (" +
                     describeOffset(content, document.GetErrorOffset()) +
                     "): " + rapidjson::GetParseError_En(document.GetParseError()));
  }
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  document.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

RequestTemplate readRequest(const Value& value, const JsonPath& path,
                            const std::filesystem::path& body_dir) {
  ObjectFields fields(value, path);
  RequestTemplate request;
  if (const Value* weight = fields.find("weight")) {
    request.weight =
        readNumber(*weight, fields.pathOf("weight"), 1e-9, 1e9, "a number greater than 0");
  }
  request.method = readString(fields.require("method"), fields.pathOf("method"));
  if (std::find(kMethods.begin(), kMethods.end(), request.method) == kMethods.end()) {
    failAt(fields.pathOf("method"),
           "expected one of GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS (upper case)");
  }
  request.path_template = readString(fields.require("path"), fields.pathOf("path"));
  if (const auto problem = findPathTemplateProblem(request.path_template)) {
    failAt(fields.pathOf("path"), *problem);
  }
  if (const Value* headers = fields.find("headers")) {
    request.headers = readHeaders(*headers, fields.pathOf("headers"));
  }
  if (const Value* body_file = fields.find("body_file")) {
    const JsonPath body_path = fields.pathOf("body_file");
    const std::string relative = readString(*body_file, body_path);
    if (relative.empty()) {
      failAt(body_path, "expected a file name");
    }
    if (request.method == "GET" || request.method == "HEAD") {
      failAt(body_path, "a " + request.method + " request carries no body");
    }
    // A body comes from the scenarios folder, never from elsewhere ("../../etc/shadow").
    const std::filesystem::path relative_path(relative);
    const std::filesystem::path normal = relative_path.lexically_normal();
    if (relative_path.is_absolute() || normal.empty() || *normal.begin() == "..") {
      failAt(body_path, "expected a file of " + body_dir.string() + ", got '" + relative + "'");
    }
    request.body_file = body_dir / normal;
    request.body = readBody(request.body_file, body_path);
  }
  fields.rejectUnknownFields();
  return request;
}

std::vector<Stage> readStages(const Value& value, const JsonPath& path) {
  requireNonEmptyArray(value, path);
  std::vector<Stage> stages;
  for (rapidjson::SizeType index = 0; index < value.Size(); ++index) {
    ObjectFields fields(value[index], path.element(index));
    Stage stage;
    stage.duration_fraction = readNumber(fields.require("duration"), fields.pathOf("duration"), 0.0,
                                         1.0, kFractionExpectation);
    stage.target_fraction = readNumber(fields.require("target"), fields.pathOf("target"), 0.0, 1.0,
                                       kFractionExpectation);
    fields.rejectUnknownFields();
    stages.push_back(stage);
  }
  return stages;
}

ThinkTime readThinkTime(const Value& value, const JsonPath& path) {
  ObjectFields fields(value, path);
  const double min = readSeconds(fields.require("min"), fields.pathOf("min"));
  const double max = readNumber(fields.require("max"), fields.pathOf("max"), min, kMaxSeconds,
                                "a number of seconds between min (" + formatNumber(min) + ") and " +
                                    std::to_string(kMaxPhaseSeconds));
  fields.rejectUnknownFields();
  return ThinkTime{toMillis(min), toMillis(max)};
}

/// Fields that only some executors use are rejected for the others, so a workload never says
/// something that is silently ignored.
void rejectIfPresent(ObjectFields& fields, std::string_view key, ExecutorKind executor) {
  if (fields.find(key) != nullptr) {
    failAt(fields.pathOf(key),
           "not used by the " + std::string(executorName(executor)) + " executor");
  }
}

std::vector<RequestTemplate> readRequests(const Value& value, const JsonPath& path,
                                          const std::filesystem::path& body_dir) {
  requireNonEmptyArray(value, path);
  std::vector<RequestTemplate> requests;
  for (rapidjson::SizeType index = 0; index < value.Size(); ++index) {
    requests.push_back(readRequest(value[index], path.element(index), body_dir));
  }
  return requests;
}

SubScenario readSubScenario(const Value& value, const JsonPath& path,
                            const std::filesystem::path& body_dir) {
  ObjectFields fields(value, path);
  SubScenario sub;

  sub.name = readString(fields.require("name"), fields.pathOf("name"));
  if (sub.name.empty() || !std::all_of(sub.name.begin(), sub.name.end(), isNameCharacter)) {
    failAt(fields.pathOf("name"), "expected a name of letters, digits, '-' and '_'");
  }

  const std::string executor = readString(fields.require("executor"), fields.pathOf("executor"));
  const auto kind = executorFromName(executor);
  if (!kind) {
    failAt(fields.pathOf("executor"),
           "expected one of constant-vus, ramping-vus, constant-arrival-rate, "
           "ramping-arrival-rate, got '" +
               executor + "'");
  }
  sub.executor = *kind;

  if (const Value* share = fields.find("connection_share")) {
    constexpr std::string_view kShareExpectation = "a number greater than 0, at most 1";
    sub.connection_share =
        readNumber(*share, fields.pathOf("connection_share"), 0.0, 1.0, kShareExpectation);
    if (sub.connection_share <= 0.0) {
      failAt(fields.pathOf("connection_share"), "expected " + std::string(kShareExpectation));
    }
  }

  if (isRamping(sub.executor)) {
    if (const Value* start = fields.find("start_target")) {
      sub.start_target_fraction =
          readNumber(*start, fields.pathOf("start_target"), 0.0, 1.0, kFractionExpectation);
    }
    sub.stages = readStages(fields.require("stages"), fields.pathOf("stages"));
    if (const Value* cycles = fields.find("stage_cycles")) {
      const JsonPath cycles_path = fields.pathOf("stage_cycles");
      if (!cycles->IsUint() || cycles->GetUint() < 1 || cycles->GetUint() > kMaxStageCycles) {
        failAt(cycles_path, "expected an integer between 1 and 10000");
      }
      sub.stage_cycles = cycles->GetUint();
    }
    double total = 0.0;
    for (const Stage& stage : sub.stages) {
      total += stage.duration_fraction;
    }
    total *= sub.stage_cycles;
    if (std::abs(total - 1.0) > kDurationSumTolerance) {
      failAt(fields.pathOf("stages"), "durations (times stage_cycles) add up to " +
                                          formatNumber(total) + " of the phase, expected 1");
    }
  } else {
    rejectIfPresent(fields, "start_target", sub.executor);
    rejectIfPresent(fields, "stages", sub.executor);
    rejectIfPresent(fields, "stage_cycles", sub.executor);
  }

  if (const Value* stop = fields.find("graceful_stop_seconds")) {
    sub.graceful_stop = toMillis(readSeconds(*stop, fields.pathOf("graceful_stop_seconds")));
  }
  if (sub.executor == ExecutorKind::kRampingVus) {
    if (const Value* ramp_down = fields.find("graceful_ramp_down_seconds")) {
      sub.graceful_ramp_down =
          toMillis(readSeconds(*ramp_down, fields.pathOf("graceful_ramp_down_seconds")));
    }
  } else {
    rejectIfPresent(fields, "graceful_ramp_down_seconds", sub.executor);
  }
  if (const Value* think_time = fields.find("think_time_seconds")) {
    sub.think_time = readThinkTime(*think_time, fields.pathOf("think_time_seconds"));
  }
  if (const Value* discard = fields.find("discard_response_bodies")) {
    sub.discard_response_bodies = readBool(*discard, fields.pathOf("discard_response_bodies"));
  }
  sub.requests = readRequests(fields.require("requests"), fields.pathOf("requests"), body_dir);
  fields.rejectUnknownFields();
  return sub;
}

Workload readWorkload(const Value& root, const std::filesystem::path& source,
                      const std::filesystem::path& body_dir) {
  ObjectFields fields(root, JsonPath());
  Workload workload;
  workload.name = source.stem().string();
  workload.source_file = source;
  if (const Value* description = fields.find("description")) {
    workload.description = readString(*description, fields.pathOf("description"));
  }
  if (const Value* cap = fields.find("global_rate_cap")) {
    if (!cap->IsString() || stringView(*cap) != "requestsPerSecond") {
      failAt(fields.pathOf("global_rate_cap"),
             "expected \"requestsPerSecond\" (the scenario row's column), or no field for no cap");
    }
    workload.global_rate_cap = RateCapSource::kScenarioRequestsPerSecond;
  }

  const JsonPath scenarios_path = fields.pathOf("scenarios");
  const Value& scenarios = fields.require("scenarios");
  requireNonEmptyArray(scenarios, scenarios_path);
  if (scenarios.Size() > kMaxSubScenarios) {
    failAt(scenarios_path, "at most 64 sub-scenarios");
  }
  double total_share = 0.0;
  for (rapidjson::SizeType index = 0; index < scenarios.Size(); ++index) {
    const JsonPath sub_path = scenarios_path.element(index);
    SubScenario sub = readSubScenario(scenarios[index], sub_path, body_dir);
    for (const SubScenario& earlier : workload.sub_scenarios) {
      if (earlier.name == sub.name) {
        failAt(sub_path.field("name"), "duplicate name '" + sub.name + "'");
      }
    }
    total_share += sub.connection_share;
    workload.sub_scenarios.push_back(std::move(sub));
  }
  if (total_share > 1.0 + kDurationSumTolerance) {
    failAt(scenarios_path,
           "connection shares add up to " + formatNumber(total_share) + ", at most 1 allowed");
  }
  fields.rejectUnknownFields();
  return workload;
}

}  // namespace

Workload parseWorkload(std::string_view json, const std::filesystem::path& source,
                       const std::filesystem::path& body_dir) {
  const std::string file = source.string();
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
      json.data(), json.size());
  if (document.HasParseError()) {
    throw WorkloadFileError(file + ": invalid JSON at " +
                            describeOffset(json, document.GetErrorOffset()) + ": " +
                            rapidjson::GetParseError_En(document.GetParseError()));
  }
  try {
    return readWorkload(document, source, body_dir);
  } catch (const SchemaViolation& violation) {
    const std::string& where = violation.path().text();
    throw WorkloadFileError(file + ": " + (where.empty() ? "" : where + ": ") + violation.what());
  }
}

Workload loadWorkloadFile(const std::filesystem::path& path,
                          const std::filesystem::path& body_dir) {
  std::string json;
  try {
    json = readWholeFile(path);
  } catch (const std::runtime_error& error) {
    throw WorkloadFileError(path.string() + ": " + error.what());
  }
  return parseWorkload(json, path, body_dir);
}

}  // namespace benchd::scenario
