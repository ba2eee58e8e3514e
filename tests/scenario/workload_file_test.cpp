#include "shipped_data.hpp"
#include "temp_dir.hpp"

#include <benchd/scenario/workload_catalog.hpp>
#include <benchd/scenario/workload_file.hpp>
#include <benchd/scenario/workload_file_error.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <fstream>
#include <string>
#include <sys/stat.h>

namespace benchd::scenario {
namespace {

using benchd::testing::TempDir;
using std::chrono::milliseconds;
using testing::scenariosDir;
using testing::shippedWorkloads;

constexpr const char* kSource = "scenarios/workloads/x.json";

Workload parse(const std::string& json) {
  return parseWorkload(json, kSource, scenariosDir());
}

/// what() of the error parsing `json` throws, or "" when it parses.
std::string errorOf(const std::string& json) {
  try {
    parse(json);
  } catch (const WorkloadFileError& error) {
    return error.what();
  }
  return "";
}

/// A workload of one sub-scenario whose JSON object body (without braces) is `fields`.
std::string oneScenario(const std::string& fields) {
  return R"({"scenarios": [{)" + fields + "}]}";
}

constexpr const char* kGetRequest = R"("requests": [{"method": "GET", "path": "/{approach}/x"}])";

std::string rampingWith(const std::string& stages) {
  return oneScenario(R"("name": "a", "executor": "ramping-vus", "stages": )" + stages + ", " +
                     kGetRequest);
}

TEST(WorkloadFile, MinimalWorkloadGetsTheDefaults) {
  const Workload workload =
      parse(oneScenario(std::string(R"("name": "a", "executor": "constant-vus", )") + kGetRequest));
  EXPECT_EQ(workload.name, "x");
  EXPECT_EQ(workload.source_file, kSource);
  EXPECT_EQ(workload.description, "");
  EXPECT_EQ(workload.global_rate_cap, RateCapSource::kNone);
  EXPECT_FALSE(workload.needsRequestRate());
  ASSERT_EQ(workload.sub_scenarios.size(), 1U);
  const SubScenario& sub = workload.sub_scenarios[0];
  EXPECT_EQ(sub.name, "a");
  EXPECT_EQ(sub.executor, ExecutorKind::kConstantVus);
  EXPECT_EQ(sub.connection_share, 1.0);
  EXPECT_EQ(sub.graceful_stop, milliseconds(30'000));
  EXPECT_FALSE(sub.think_time.has_value());
  EXPECT_FALSE(sub.discard_response_bodies);
  ASSERT_EQ(sub.requests.size(), 1U);
  EXPECT_EQ(sub.requests[0].weight, 1.0);
  EXPECT_EQ(sub.requests[0].method, "GET");
  EXPECT_EQ(sub.requests[0].path_template, "/{approach}/x");
  EXPECT_TRUE(sub.requests[0].headers.empty());
  EXPECT_TRUE(sub.requests[0].body.empty());
}

TEST(WorkloadFile, ReadsEveryField) {
  const Workload workload = parse(R"({
    "description": "all of it",
    "global_rate_cap": "requestsPerSecond",
    "scenarios": [
      { "name": "up-down", "executor": "ramping-vus", "connection_share": 0.5,
        "start_target": 0.1, "stages": [{"duration": 0.25, "target": 1}, {"duration": 0.25, "target": 0}],
        "stage_cycles": 2, "graceful_stop_seconds": 2, "graceful_ramp_down_seconds": 1.5,
        "think_time_seconds": {"min": 0.5, "max": 3}, "discard_response_bodies": true,
        "requests": [
          {"weight": 3, "method": "GET", "path": "/{approach}/movies?d={delayCallDepth}&m={delayInMillis}"},
          {"weight": 1, "method": "POST", "path": "/{approach}/movies",
           "headers": {"Content-Type": "application/json", "Accept": "application/json"},
           "body_file": "movies.json"}
        ] },
      { "name": "arrivals", "executor": "ramping-arrival-rate", "connection_share": 0.5,
        "start_target": 0, "stages": [{"duration": 1, "target": 1}], "requests": [
          {"method": "DELETE", "path": "/{approach}/movies/1"}] }
    ] })");
  EXPECT_EQ(workload.description, "all of it");
  EXPECT_EQ(workload.global_rate_cap, RateCapSource::kScenarioRequestsPerSecond);
  EXPECT_TRUE(workload.needsRequestRate());
  ASSERT_EQ(workload.sub_scenarios.size(), 2U);
  const SubScenario& sub = workload.sub_scenarios[0];
  EXPECT_EQ(sub.executor, ExecutorKind::kRampingVus);
  EXPECT_EQ(sub.connection_share, 0.5);
  EXPECT_EQ(sub.start_target_fraction, 0.1);
  ASSERT_EQ(sub.stages.size(), 2U);
  EXPECT_EQ(sub.stages[0].duration_fraction, 0.25);
  EXPECT_EQ(sub.stages[0].target_fraction, 1.0);
  EXPECT_EQ(sub.stage_cycles, 2U);
  EXPECT_EQ(sub.graceful_stop, milliseconds(2000));
  EXPECT_EQ(sub.graceful_ramp_down, milliseconds(1500));
  ASSERT_TRUE(sub.think_time.has_value());
  EXPECT_EQ(sub.think_time->min, milliseconds(500));
  EXPECT_EQ(sub.think_time->max, milliseconds(3000));
  EXPECT_TRUE(sub.discard_response_bodies);
  ASSERT_EQ(sub.requests.size(), 2U);
  EXPECT_EQ(sub.requests[0].weight, 3.0);
  const RequestTemplate& post = sub.requests[1];
  EXPECT_EQ(post.method, "POST");
  ASSERT_EQ(post.headers.size(), 2U);
  EXPECT_EQ(post.headers[0].name, "Content-Type");
  EXPECT_EQ(post.headers[0].value, "application/json");
  EXPECT_EQ(post.body_file, scenariosDir() / "movies.json");
  EXPECT_EQ(workload.sub_scenarios[1].executor, ExecutorKind::kRampingArrivalRate);
}

TEST(WorkloadFile, JsonBodyIsSentCompactAndOtherBodiesAsTheyAre) {
  const TempDir dir;
  dir.write("body.json", "[\n  { \"title\": \"Annie Hall\",\n    \"year\": 1977 }\n]\n");
  dir.write("body.txt", "line one\n  line two\n");
  const auto request = [&dir](const std::string& file) {
    return parseWorkload(oneScenario(R"("name": "a", "executor": "constant-vus", "requests": [)"
                                     R"({"method": "POST", "path": "/", "body_file": ")" +
                                     file + "\"}]"),
                         kSource, dir.path())
        .sub_scenarios[0]
        .requests[0];
  };
  EXPECT_EQ(request("body.json").body, R"([{"title":"Annie Hall","year":1977}])");
  EXPECT_EQ(request("body.txt").body, "line one\n  line two\n");
}

TEST(WorkloadFile, ShippedMoviesBodyIsTheCompactMoviesArray) {
  const Workload& workload = shippedWorkloads().get("get-post-movies-smooth-vus-spike");
  const RequestTemplate& post = workload.sub_scenarios.back().requests.at(0);
  ASSERT_FALSE(post.body.empty());
  EXPECT_EQ(post.body.find('\n'), std::string::npos);
  rapidjson::Document movies;
  movies.Parse(post.body.c_str());
  ASSERT_FALSE(movies.HasParseError());
  ASSERT_TRUE(movies.IsArray());
  EXPECT_EQ(movies.Size(), 8U);
}

TEST(WorkloadFileErrors, TheIssueExample) {
  EXPECT_EQ(errorOf(R"({"scenarios": [
      {"name": "a", "executor": "constant-vus", "connection_share": 0.5, "requests": [{"method": "GET", "path": "/"}]},
      {"name": "b", "executor": "ramping-vus", "connection_share": 0.5,
       "stages": [{"duration": 1, "target": 1.5}], "requests": [{"method": "GET", "path": "/"}]}]})"),
            "scenarios/workloads/x.json: scenarios[1].stages[0].target: expected a number "
            "between 0 and 1");
}

TEST(WorkloadFileErrors, InvalidJson) {
  EXPECT_EQ(errorOf("{\n  \"scenarios\": [\n    }"),
            "scenarios/workloads/x.json: invalid JSON at line 3, column 5: Invalid value.");
  EXPECT_EQ(errorOf(""),
            "scenarios/workloads/x.json: invalid JSON at line 1, column 1: The document is empty.");
}

TEST(WorkloadFileErrors, TopLevel) {
  EXPECT_EQ(errorOf("[]"), "scenarios/workloads/x.json: expected a JSON object");
  EXPECT_EQ(errorOf("{}"), "scenarios/workloads/x.json: scenarios: required field is missing");
  EXPECT_EQ(errorOf(R"({"scenarios": []})"),
            "scenarios/workloads/x.json: scenarios: expected a non-empty array");
  EXPECT_EQ(errorOf(R"({"description": 3, "scenarios": []})"),
            "scenarios/workloads/x.json: description: expected a string");
  EXPECT_EQ(errorOf(R"({"global_rate_cap": 100, "scenarios": []})"),
            "scenarios/workloads/x.json: global_rate_cap: expected \"requestsPerSecond\" (the "
            "scenario row's column), or no field for no cap");
}

TEST(WorkloadFileErrors, UnknownAndDuplicateFields) {
  EXPECT_EQ(
      errorOf(std::string(
                  R"({"scenario": [], "scenarios": [{"name": "a", "executor": "constant-vus", )") +
              kGetRequest + "}]}"),
      "scenarios/workloads/x.json: scenario: unknown field (known here: description, "
      "global_rate_cap, scenarios)");
  EXPECT_EQ(
      errorOf(
          oneScenario(std::string(R"("name": "a", "executor": "constant-vus", "thinktime": 1, )") +
                      kGetRequest))
          .rfind("scenarios/workloads/x.json: scenarios[0].thinktime: unknown field (known "
                 "here: ",
                 0),
      0U);
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(R"("name": "a", "executor": "constant-vus", "executor": "ramping-vus", )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].executor: the field appears twice");
}

// Real time, generous bound: 100,000 distinct keys (1.3 MB, within the size cap) take
// milliseconds with a linear duplicate check and several seconds with a quadratic one.
TEST(WorkloadFileErrors, ManyDistinctKeysFailFastRealTime) {
  std::string json = "{";
  for (int key = 0; key < 100'000; ++key) {
    json += "\"k" + std::to_string(key) + "\": 0, ";
  }
  json += R"("scenarios": []})";
  const auto started = std::chrono::steady_clock::now();
  const std::string error = errorOf(json);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(error.rfind("scenarios/workloads/x.json: ", 0), 0U) << error;
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST(WorkloadFileErrors, SubScenarioFields) {
  EXPECT_EQ(errorOf(oneScenario(std::string(R"("executor": "constant-vus", )") + kGetRequest)),
            "scenarios/workloads/x.json: scenarios[0].name: required field is missing");
  EXPECT_EQ(errorOf(oneScenario(std::string(R"("name": "a b", "executor": "constant-vus", )") +
                                kGetRequest)),
            "scenarios/workloads/x.json: scenarios[0].name: expected a name of letters, digits, "
            "'-' and '_'");
  EXPECT_EQ(errorOf(oneScenario(std::string(R"("name": "a", "executor": "per-vu-iterations", )") +
                                kGetRequest)),
            "scenarios/workloads/x.json: scenarios[0].executor: expected one of constant-vus, "
            "ramping-vus, constant-arrival-rate, ramping-arrival-rate, got 'per-vu-iterations'");
  EXPECT_EQ(errorOf(oneScenario(
                std::string(R"("name": "a", "executor": "constant-vus", "connection_share": 0, )") +
                kGetRequest)),
            "scenarios/workloads/x.json: scenarios[0].connection_share: expected a number greater "
            "than 0, at most 1");
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(R"("name": "a", "executor": "constant-vus", "graceful_stop_seconds": -1, )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].graceful_stop_seconds: expected a number of "
      "seconds between 0 and 86400");
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(
              R"("name": "a", "executor": "constant-vus", "discard_response_bodies": "yes", )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].discard_response_bodies: expected true or "
      "false");
  EXPECT_EQ(errorOf(oneScenario(R"("name": "a", "executor": "constant-vus")")),
            "scenarios/workloads/x.json: scenarios[0].requests: required field is missing");
}

TEST(WorkloadFileErrors, FieldsTheExecutorDoesNotUse) {
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(
              R"("name": "a", "executor": "constant-vus", "stages": [{"duration": 1, "target": 1}], )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].stages: not used by the constant-vus "
      "executor");
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(
              R"("name": "a", "executor": "ramping-arrival-rate", "stages": [{"duration": 1, "target": 1}], "graceful_ramp_down_seconds": 1, )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].graceful_ramp_down_seconds: not used by the "
      "ramping-arrival-rate executor");
}

TEST(WorkloadFileErrors, Stages) {
  EXPECT_EQ(errorOf(oneScenario(std::string(R"("name": "a", "executor": "ramping-vus", )") +
                                kGetRequest)),
            "scenarios/workloads/x.json: scenarios[0].stages: required field is missing");
  EXPECT_EQ(errorOf(rampingWith("[]")),
            "scenarios/workloads/x.json: scenarios[0].stages: expected a non-empty array");
  EXPECT_EQ(errorOf(rampingWith(R"([{"duration": 1}])")),
            "scenarios/workloads/x.json: scenarios[0].stages[0].target: required field is missing");
  EXPECT_EQ(errorOf(rampingWith(R"([{"duration": "1s", "target": 1}])")),
            "scenarios/workloads/x.json: scenarios[0].stages[0].duration: expected a number "
            "between 0 and 1");
  EXPECT_EQ(errorOf(rampingWith(
                R"([{"duration": 0.5, "target": -0.1}, {"duration": 0.5, "target": 0}])")),
            "scenarios/workloads/x.json: scenarios[0].stages[0].target: expected a number between "
            "0 and 1");
  EXPECT_EQ(
      errorOf(rampingWith(R"([{"duration": 0.6, "target": 1}, {"duration": 0.3, "target": 0}])")),
      "scenarios/workloads/x.json: scenarios[0].stages: durations (times stage_cycles) add "
      "up to 0.8999999999999999 of the phase, expected 1");
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(
              R"("name": "a", "executor": "ramping-vus", "stages": [{"duration": 0.5, "target": 1}], "stage_cycles": 0, )") +
          kGetRequest)),
      "scenarios/workloads/x.json: scenarios[0].stage_cycles: expected an integer between 1 "
      "and 10000");
  EXPECT_EQ(
      errorOf(oneScenario(
          std::string(
              R"("name": "a", "executor": "ramping-vus", "stages": [{"duration": 0.5, "target": 1}], "stage_cycles": 2, )") +
          kGetRequest)),
      "");
}

TEST(WorkloadFileErrors, SharesAndNames) {
  const std::string sub_a =
      std::string(R"({"name": "a", "executor": "constant-vus", "connection_share": 0.75, )") +
      kGetRequest + "}";
  const std::string sub_b =
      std::string(R"({"name": "b", "executor": "constant-vus", "connection_share": 0.75, )") +
      kGetRequest + "}";
  EXPECT_EQ(errorOf(R"({"scenarios": [)" + sub_a + "," + sub_b + "]}"),
            "scenarios/workloads/x.json: scenarios: connection shares add up to 1.5, at most 1 "
            "allowed");
  EXPECT_EQ(errorOf(R"({"scenarios": [)" + sub_a + "," + sub_a + "]}"),
            "scenarios/workloads/x.json: scenarios[1].name: duplicate name 'a'");
}

TEST(WorkloadFileErrors, ThinkTime) {
  const auto with_think_time = [](const std::string& think_time) {
    return errorOf(
        oneScenario(R"("name": "a", "executor": "constant-vus", "think_time_seconds": )" +
                    think_time + ", " + kGetRequest));
  };
  EXPECT_EQ(with_think_time(R"({"min": 3, "max": 1})"),
            "scenarios/workloads/x.json: scenarios[0].think_time_seconds.max: expected a number of "
            "seconds between min (3) and 86400");
  EXPECT_EQ(with_think_time(R"({"min": -1, "max": 1})"),
            "scenarios/workloads/x.json: scenarios[0].think_time_seconds.min: expected a number of "
            "seconds between 0 and 86400");
  EXPECT_EQ(with_think_time("2"),
            "scenarios/workloads/x.json: scenarios[0].think_time_seconds: expected a JSON object");
  EXPECT_EQ(with_think_time(R"({"min": 2, "max": 2})"), "");
}

TEST(WorkloadFileErrors, Requests) {
  const auto with_request = [](const std::string& request) {
    return errorOf(
        oneScenario(R"("name": "a", "executor": "constant-vus", "requests": [)" + request + "]"));
  };
  EXPECT_EQ(with_request(R"({"method": "get", "path": "/"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].method: expected one of GET, "
            "HEAD, POST, PUT, DELETE, PATCH, OPTIONS (upper case)");
  EXPECT_EQ(with_request(R"({"method": "GET"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].path: required field is missing");
  EXPECT_EQ(with_request(R"({"method": "GET", "path": "movies"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].path: expected a path starting "
            "with '/'");
  EXPECT_EQ(with_request(R"({"method": "GET", "path": "/{approach}/x?d={delay}"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].path: unknown placeholder "
            "{delay} (known: {approach}, {delayCallDepth}, {delayInMillis})");
  EXPECT_EQ(with_request(R"({"method": "GET", "path": "/", "weight": 0})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].weight: expected a number "
            "greater than 0");
  EXPECT_EQ(with_request(R"({"method": "GET", "path": "/", "body_file": "movies.json"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].body_file: a GET request "
            "carries no body");
  EXPECT_EQ(with_request(R"({"method": "POST", "path": "/", "body_file": "none.json"})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].body_file: cannot read '" +
                (scenariosDir() / "none.json").string() + "': no such file");
  EXPECT_EQ(with_request(R"({"method": "POST", "path": "/", "headers": {"Content-Length": "3"}})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].headers.Content-Length: set by "
            "the load generator, not by the workload");
  EXPECT_EQ(with_request(R"({"method": "POST", "path": "/", "headers": {"Accept": 1}})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].headers.Accept: expected a "
            "string");
  EXPECT_EQ(with_request(R"({"method": "POST", "path": "/", "headers": {"Bad Name": "x"}})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].headers.Bad Name: not a valid "
            "HTTP header name");
  EXPECT_EQ(with_request(R"({"method": "POST", "path": "/", "headers": {"X-A": "a\r\nX-B: b"}})"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].headers.X-A: a header value may "
            "not contain control characters");
}

TEST(WorkloadFileErrors, InvalidJsonBodyFile) {
  const TempDir dir;
  dir.write("broken.json", "[1, 2");
  try {
    parseWorkload(oneScenario(R"("name": "a", "executor": "constant-vus", "requests": [)"
                              R"({"method": "POST", "path": "/", "body_file": "broken.json"}])"),
                  kSource, dir.path());
    FAIL() << "expected a WorkloadFileError";
  } catch (const WorkloadFileError& error) {
    EXPECT_EQ(std::string(error.what()),
              "scenarios/workloads/x.json: scenarios[0].requests[0].body_file: '" +
                  (dir.path() / "broken.json").string() +
                  "' is not valid JSON (line 1, column 6): Missing a comma or ']' after an array "
                  "element.");
  }
}

/// The error of a POST request whose body_file is `body_file`, in `dir`.
std::string bodyFileError(const TempDir& dir, const std::string& body_file) {
  try {
    parseWorkload(oneScenario(R"("name": "a", "executor": "constant-vus", "requests": [)"
                              R"({"method": "POST", "path": "/", "body_file": ")" +
                              body_file + R"("}])"),
                  kSource, dir.path());
  } catch (const WorkloadFileError& error) {
    return error.what();
  }
  return "accepted";
}

TEST(WorkloadFileErrors, BodyFilesStayInTheirFolderAndAreSmallRegularFiles) {
  const TempDir dir;
  EXPECT_EQ(bodyFileError(dir, "../outside.json"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].body_file: expected a file of " +
                dir.path().string() + ", got '../outside.json'");
  EXPECT_EQ(bodyFileError(dir, "/etc/passwd"),
            "scenarios/workloads/x.json: scenarios[0].requests[0].body_file: expected a file of " +
                dir.path().string() + ", got '/etc/passwd'");
  ASSERT_EQ(::mkfifo((dir.path() / "pipe.txt").c_str(), 0600), 0);
  EXPECT_NE(bodyFileError(dir, "pipe.txt").find("is not a regular file"), std::string::npos);
  dir.write("deep.json", std::string(100, '[') + std::string(100, ']'));
  EXPECT_NE(bodyFileError(dir, "deep.json").find("nests arrays and objects more than 64 deep"),
            std::string::npos);
  {
    std::ofstream big(dir.path() / "big.txt", std::ios::binary);
    big.seekp(static_cast<std::streamoff>(17) << 20);
    big.put('x');
  }
  EXPECT_NE(bodyFileError(dir, "big.txt").find("more than the 16777216 allowed"),
            std::string::npos);
  dir.write("fine.txt", "payload");
  EXPECT_EQ(bodyFileError(dir, "sub/../fine.txt"), "accepted");
}

TEST(WorkloadCatalog, LoadsTheShippedWorkloads) {
  EXPECT_EQ(shippedWorkloads().names(),
            (std::vector<std::string>{
                "get-movies", "get-movies-smooth-vus-spike", "get-movies-stepped-vus-spike",
                "get-post-movies-sharp-vus-spikes", "get-post-movies-smooth-vus-spike", "get-time",
                "get-time-arrival-rate"}));
}

TEST(WorkloadCatalog, FindsByNameWithOrWithoutJsSuffix) {
  const WorkloadCatalog& catalog = shippedWorkloads();
  ASSERT_NE(catalog.find("get-movies"), nullptr);
  EXPECT_EQ(catalog.find("get-movies.js"), catalog.find("get-movies"));
  EXPECT_EQ(&catalog.get("get-movies.js"), catalog.find("get-movies"));
  EXPECT_EQ(catalog.find("get-movies.json"), nullptr);
  EXPECT_EQ(catalog.find(".js"), nullptr);
  EXPECT_EQ(workloadNameOf("get-time.js"), "get-time");
  EXPECT_EQ(workloadNameOf("get-time"), "get-time");
}

TEST(WorkloadCatalog, UnknownNameListsTheKnownOnes) {
  try {
    (void)shippedWorkloads().get("get-nothing.js");
    FAIL() << "expected an UnknownWorkloadError";
  } catch (const UnknownWorkloadError& error) {
    EXPECT_STREQ(error.what(),
                 "unknown workload 'get-nothing.js' (known: get-movies, "
                 "get-movies-smooth-vus-spike, get-movies-stepped-vus-spike, "
                 "get-post-movies-sharp-vus-spikes, get-post-movies-smooth-vus-spike, get-time, "
                 "get-time-arrival-rate)");
  }
  EXPECT_EQ(WorkloadCatalog().describeNames(), "none");
}

TEST(WorkloadCatalog, ResolvesBodiesAgainstTheParentDirectory) {
  const TempDir dir;
  dir.write("scenarios/body.json", "[1,  2]");
  dir.write("scenarios/workloads/notes.txt", "not a workload");
  dir.write("scenarios/workloads/post.json",
            oneScenario(R"("name": "a", "executor": "constant-vus", "requests": [)"
                        R"({"method": "POST", "path": "/", "body_file": "body.json"}])"));
  const WorkloadCatalog catalog =
      WorkloadCatalog::loadDirectory(dir.path() / "scenarios" / "workloads" / "");
  EXPECT_EQ(catalog.names(), (std::vector<std::string>{"post"}));
  EXPECT_EQ(catalog.get("post").sub_scenarios[0].requests[0].body, "[1,2]");
}

TEST(WorkloadCatalog, RejectsAMissingDirectoryAndBadFiles) {
  const TempDir dir;
  try {
    (void)WorkloadCatalog::loadDirectory(dir.path() / "none");
    FAIL() << "expected a WorkloadFileError";
  } catch (const WorkloadFileError& error) {
    EXPECT_EQ(std::string(error.what()), (dir.path() / "none").string() + ": not a directory");
  }
  dir.write("workloads/bad.json", R"({"scenarios": 1})");
  try {
    (void)WorkloadCatalog::loadDirectory(dir.path() / "workloads");
    FAIL() << "expected a WorkloadFileError";
  } catch (const WorkloadFileError& error) {
    EXPECT_EQ(std::string(error.what()), (dir.path() / "workloads" / "bad.json").string() +
                                             ": scenarios: expected a non-empty array");
  }
}

}  // namespace
}  // namespace benchd::scenario
