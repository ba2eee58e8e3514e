// The REST control API in this process: a real ControlApi over a real store, run queue and
// scenario library in a temporary folder, its router's handlers called with request objects.
// The edge cases of each handler (bodies, names, ids, query parameters, content types) run in
// milliseconds here; tests/control/serve_*_test.cpp drive the same API through `benchd serve`.
#include "build_paths.hpp"
#include "scenario_csv.hpp"
#include "temp_dir.hpp"

#include <benchd/control/control_api.hpp>
#include <benchd/control/run_queue.hpp>
#include <benchd/http/policies.hpp>
#include <benchd/http/router.hpp>
#include <benchd/http/target.hpp>
#include <benchd/runner/plugin_folders.hpp>
#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace benchd::control {
namespace {

namespace fs = std::filesystem;
using benchd::testing::kScenarioCsvHeader;
/// A scenario file the library accepts.
const std::string kValidCsv = std::string(kScenarioCsvHeader) + "one,get-time.js,,0,0,4,,0,2\n";

/// Every operation of the API (api/openapi.yaml), with a target that matches its route.
struct Operation {
  const char* method;
  const char* target;
};
constexpr Operation kOperations[] = {
    {"GET", "/api/v1/health"},
    {"GET", "/api/v1/version"},
    {"GET", "/api/v1/approaches"},
    {"POST", "/api/v1/approaches/rescan"},
    {"GET", "/metrics"},
    {"GET", "/api/v1/scenario-files"},
    {"GET", "/api/v1/scenario-files/a.csv"},
    {"PUT", "/api/v1/scenario-files/a.csv"},
    {"DELETE", "/api/v1/scenario-files/a.csv"},
    {"POST", "/api/v1/runs"},
    {"GET", "/api/v1/runs"},
    {"GET", "/api/v1/runs/1"},
    {"DELETE", "/api/v1/runs/1"},
    {"POST", "/api/v1/runs/1/stop"},
    {"POST", "/api/v1/runs/1/resume"},
    {"GET", "/api/v1/runs/1/events"},
    {"GET", "/api/v1/runs/1/results"},
    {"GET", "/api/v1/runs/1/results/row/approach/seconds"},
    {"GET", "/api/v1/runs/1/results.csv"},
    {"GET", "/api/v1/runs/1/results.md"},
    {"GET", "/api/v1/runs/1/charts"},
    {"GET", "/api/v1/runs/1/charts/results.png"},
    {"GET", "/api/v1/runs/1/charts/row/chart.png"},
    {"GET", "/api/v1/runs/1/winners"},
    {"GET", "/api/v1/compare"},
};

/// The response is an RFC 9457 problem with `status` (in its body too), a detail, and the
/// extension `field` naming `field`.
::testing::AssertionResult isFieldProblem(const http::Response& response, unsigned status,
                                          const std::string& field) {
  if (response.status != status) {
    return ::testing::AssertionFailure()
           << "status " << response.status << ", expected " << status << ": " << response.body;
  }
  if (response.headers.get("Content-Type") != "application/problem+json") {
    return ::testing::AssertionFailure()
           << "Content-Type '" << response.headers.get("Content-Type").value_or("")
           << "', expected application/problem+json";
  }
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  if (body.HasParseError() || !body.IsObject() || !body.HasMember("status") ||
      !body["status"].IsUint() || body["status"].GetUint() != status || !body.HasMember("detail") ||
      !body["detail"].IsString() || body["detail"].GetStringLength() == 0 ||
      !body.HasMember("field") || !body["field"].IsString() || body["field"].GetString() != field) {
    return ::testing::AssertionFailure()
           << "not a problem with status " << status << ", a detail and field '" << field
           << "': " << response.body;
  }
  return ::testing::AssertionSuccess();
}

/// The member `name` of a JSON body, as text; empty when it is missing or not a string.
std::string stringOf(const http::Response& response, const char* name) {
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  return !body.HasParseError() && body.IsObject() && body.HasMember(name) && body[name].IsString()
             ? body[name].GetString()
             : std::string();
}

class ControlApiTest : public ::testing::Test {
 protected:
  ControlApiTest()
      : store_(dir_.path() / "benchd.sqlite"),
        queue_(queueOptions(), store_),
        api_(queue_, store_, queueOptions().environment, "test-version"),
        router_(api_.router()) {}

  /// The daemon's setting, as `benchd serve` makes it, with the plugin folders given as
  /// plugin_dirs: an empty one (so no plugin is inspected) that a test may remove.
  RunQueue::Options queueOptions() const {
    RunQueue::Options options;
    options.environment.scenarios_dir = fs::path(benchd::testing::sourceDir()) / "scenarios";
    options.environment.uploaded_scenarios_dir = dir_.path() / "state" / "scenario-files";
    options.environment.plugin_folders = {{pluginFolder(), runner::FolderOrigin::kPluginDirOption}};
    options.environment.worker = benchd::testing::workerPath();
    options.environment.output_dir = dir_.path() / "state" / "results";
    return options;
  }

  fs::path pluginFolder() const {
    const fs::path folder = dir_.path() / "plugins";
    fs::create_directories(folder);
    return folder;
  }

  /// What the API answers: the target parsed and the route matched as HttpServer does, then
  /// the route's handler with the path parameters bound. The server's policies (Host, token)
  /// are not run here; GuardsEveryRouteButHealthWithTheToken checks what the API tells them.
  http::Response call(const std::string& method, const std::string& target,
                      const std::string& body = {},
                      const std::optional<std::string>& content_type = std::nullopt,
                      const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    http::Request request;
    request.method = method;
    request.target = target;
    request.headers.add("Host", "127.0.0.1");
    if (content_type) {
      request.headers.add("Content-Type", *content_type);
    }
    for (const auto& [name, value] : headers) {
      request.headers.add(name, value);
    }
    request.body = body;
    http::ParsedTarget parsed = http::parseTarget(target);
    if (!parsed.ok) {
      ADD_FAILURE() << "the server refuses the target " << target << ": " << parsed.detail;
      return http::Response::empty(0);
    }
    request.path = std::move(parsed.path);
    request.segments = std::move(parsed.segments);
    request.query = std::move(parsed.query);
    http::Router::Match match = router_.match(method, request.segments, parsed.trailing_slash);
    if (match.kind != http::Router::Match::Kind::Found) {
      ADD_FAILURE() << "no route for " << method << " " << target;
      return http::Response::empty(0);
    }
    request.path_params = std::move(match.params);
    return (*match.handler)(request);
  }

  /// POST /api/v1/runs with `body` as `content_type` (none when nullopt).
  http::Response postRun(const std::string& body,
                         const std::optional<std::string>& content_type = "application/json") {
    return call("POST", "/api/v1/runs", body, content_type);
  }

  http::Router::Match route(const std::string& method, const std::string& target) const {
    const http::ParsedTarget parsed = http::parseTarget(target);
    EXPECT_TRUE(parsed.ok) << target;
    return router_.match(method, parsed.segments, parsed.trailing_slash);
  }

  /// A finished run in the store, its folder `results_dir` (created when not empty).
  store::RunId finishedRun(const fs::path& results_dir) {
    store::NewRun run;
    run.scenario_file = "scenarios-ci.csv";
    run.scenario_set = "scenarios-ci";
    run.approaches = {"callbacks-asio"};
    run.results_dir = results_dir.string();
    const store::RunId id = store_.createRun(run);
    store_.finishRun(id, store::RunStatus::kCompleted, "", 1);
    if (!results_dir.empty()) {
      fs::create_directories(results_dir);
    }
    return id;
  }

  benchd::testing::TempDir dir_;
  store::ResultStore store_;
  RunQueue queue_;
  ControlApi api_;
  http::Router router_;
};

TEST_F(ControlApiTest, GuardsEveryRouteButHealthWithTheToken) {
  const http::Policy token = http::bearerTokenPolicy("the-token", "benchd");
  for (const Operation& operation : kOperations) {
    SCOPED_TRACE(std::string(operation.method) + " " + operation.target);
    const http::Router::Match match = route(operation.method, operation.target);
    ASSERT_EQ(match.kind, http::Router::Match::Kind::Found);
    const bool health = std::string(operation.target) == "/api/v1/health";
    EXPECT_EQ(match.options.is_public, health);

    http::Request anonymous;
    anonymous.method = operation.method;
    anonymous.target = operation.target;
    const std::optional<http::Response> refused =
        token(anonymous, http::RouteTraits{true, match.options.is_public});
    if (health) {
      EXPECT_FALSE(refused.has_value());
      continue;
    }
    ASSERT_TRUE(refused.has_value());
    EXPECT_EQ(refused->status, 401U);
    EXPECT_EQ(refused->headers.get("WWW-Authenticate"), "Bearer realm=\"benchd\"");
    http::Request with_token = anonymous;
    with_token.headers.add("Authorization", "Bearer the-token");
    EXPECT_FALSE(token(with_token, http::RouteTraits{true, false}).has_value());
  }
}

TEST_F(ControlApiTest, WrongMethodsOnKnownPathsListTheAllowedOnes) {
  const http::Router::Match runs = route("PUT", "/api/v1/runs");
  ASSERT_EQ(runs.kind, http::Router::Match::Kind::MethodNotAllowed);
  EXPECT_EQ(runs.allow, "GET, HEAD, POST");
  const http::Router::Match file = route("POST", "/api/v1/scenario-files/a.csv");
  ASSERT_EQ(file.kind, http::Router::Match::Kind::MethodNotAllowed);
  EXPECT_EQ(file.allow, "DELETE, GET, HEAD, PUT");
  EXPECT_EQ(route("GET", "/api/v1/runs/1/nope").kind, http::Router::Match::Kind::NotFound);
  EXPECT_EQ(route("GET", "/api/v2/health").kind, http::Router::Match::Kind::NotFound);
}

TEST_F(ControlApiTest, HealthVersionAndMetricsAnswer) {
  const http::Response health = call("GET", "/api/v1/health");
  EXPECT_EQ(health.status, 200U);
  EXPECT_EQ(stringOf(health, "status"), "UP");
  const http::Response version = call("GET", "/api/v1/version");
  EXPECT_EQ(version.status, 200U);
  EXPECT_EQ(stringOf(version, "benchd"), "test-version");
  const http::Response metrics = call("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200U);
  EXPECT_EQ(metrics.headers.get("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics.body.find("benchd_run_active 0\n"), std::string::npos) << metrics.body;
}

TEST_F(ControlApiTest, ARunRequestMustBeJsonByItsType) {
  const std::string valid = R"({"repeat":1,"scenarioFile":"scenarios-ci.csv","testSeconds":1})";
  for (const std::optional<std::string>& type :
       {std::optional<std::string>("text/plain"),
        std::optional<std::string>("application/x-www-form-urlencoded"),
        std::optional<std::string>("application/jsonx"), std::optional<std::string>()}) {
    SCOPED_TRACE("Content-Type " + type.value_or("(none)"));
    const http::Response refused = postRun(valid, type);
    EXPECT_EQ(refused.status, 415U) << refused.body;
    EXPECT_EQ(refused.headers.get("Content-Type"), "application/problem+json");
    EXPECT_EQ(refused.headers.get("Accept-Post"), "application/json");
  }
  EXPECT_EQ(store_.countRuns(std::nullopt), 0U);
}

TEST_F(ControlApiTest, ARunRequestThatIsNoJsonObjectIsABadBody) {
  for (const std::string& body :
       {std::string("{oops"), std::string("[]"), std::string("null"), std::string(" "),
        std::string("\"scenarios-ci.csv\""), std::string("{\"scenarioFile\":\"a.csv\"} x"),
        std::string("{\"scenarioFile\":\"\xff.csv\"}"), std::string(100'000, '[')}) {
    SCOPED_TRACE(body.substr(0, 40));
    EXPECT_TRUE(isFieldProblem(postRun(body), 400, "body"));
  }
  EXPECT_EQ(store_.countRuns(std::nullopt), 0U);
}

TEST_F(ControlApiTest, ARunRequestNamesTheMemberAtFault) {
  const struct {
    const char* body;
    const char* field;
  } cases[] = {
      {R"({})", "scenarioFile"},
      {R"({"approaches":["callbacks-asio"]})", "scenarioFile"},
      {R"({"scenarioFile":"scenarios-ci.csv","bogus":1})", "bogus"},
      {R"({"scenarioFile":"scenarios-ci.csv","ScenarioFile":"x"})", "ScenarioFile"},
      {R"({"scenarioFile":1})", "scenarioFile"},
      {R"({"scenarioFile":""})", "scenarioFile"},
      {R"({"scenarioFile":"../../etc/passwd"})", "scenarioFile"},
      {R"({"scenarioFile":"/etc/passwd"})", "scenarioFile"},
      {R"({"scenarioFile":"nope.csv"})", "scenarioFile"},
      {R"({"scenarioFile":"scenarios-ci.csv","approaches":"callbacks-asio"})", "approaches"},
      {R"({"scenarioFile":"scenarios-ci.csv","approaches":[1]})", "approaches"},
      {R"({"scenarioFile":"scenarios-ci.csv","approaches":["nope"]})", "approaches"},
      {R"({"scenarioFile":"scenarios-ci.csv","warmupSeconds":-1})", "warmupSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","warmupSeconds":1.5})", "warmupSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","warmupSeconds":"1"})", "warmupSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","testSeconds":0})", "testSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","testSeconds":86401})", "testSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","testSeconds":4294967296})", "testSeconds"},
      {R"({"scenarioFile":"scenarios-ci.csv","keepCsv":"yes"})", "keepCsv"},
      {R"({"scenarioFile":"scenarios-ci.csv","repeat":0})", "repeat"},
      {R"({"scenarioFile":"scenarios-ci.csv","repeat":1001})", "repeat"},
      {R"({"scenarioFile":"scenarios-ci.csv","seed":-1})", "seed"},
      {R"({"scenarioFile":"scenarios-ci.csv","winners":1})", "winners"},
      {R"({"scenarioFile":"scenarios-ci.csv","winners":"best"})", "winners"},
      {R"({"scenarioFile":"scenarios-ci.csv","aa":"x","approaches":["x"]})", "aa"},
      {R"({"scenarioFile":"scenarios-ci.csv","cpus":true})", "cpus"},
      {R"({"scenarioFile":"scenarios-ci.csv","cpus":"halves"})", "cpus"},
      {R"({"scenarioFile":"scenarios-ci.csv","memoryCap":"2M"})", "memoryCap"},
      {R"({"scenarioFile":"scenarios-ci.csv","memoryCap":true})", "memoryCap"},
      {R"({"scenarioFile":"scenarios-ci.csv","memoryCap":1024})", "memoryCap"},
  };
  for (const auto& [body, field] : cases) {
    SCOPED_TRACE(body);
    EXPECT_TRUE(isFieldProblem(postRun(body), 400, field));
  }
  EXPECT_EQ(store_.countRuns(std::nullopt), 0U) << "a refused request made a run";
}

// The runner names an approach it cannot run in no front end's words; the API adds where its
// client sees more, and the command line's words never reach it. (This daemon has no plugins.)
TEST_F(ControlApiTest, NoApproachToRunPointsToTheApproachesDocument) {
  const http::Response response =
      postRun(R"({"scenarioFile":"scenarios-ci.csv","approaches":["nope"]})");
  ASSERT_TRUE(isFieldProblem(response, 400, "approaches"));
  const std::string detail = stringOf(response, "detail");
  EXPECT_TRUE(detail.starts_with("no approach plugin was accepted in ")) << detail;
  EXPECT_TRUE(
      detail.ends_with("(GET /api/v1/approaches shows what was found and why it was rejected)"))
      << detail;
  EXPECT_EQ(detail.find("benchd plugins"), std::string::npos) << detail;
  EXPECT_EQ(detail.find("--plugin-dir"), std::string::npos) << detail;
}

TEST_F(ControlApiTest, UnknownAndMalformedRunIdsAre404) {
  for (const std::string id : {"999", "0", "-1", "abc", "1.5", "99999999999999999999999"}) {
    SCOPED_TRACE("run id " + id);
    const std::string run = "/api/v1/runs/" + id;
    EXPECT_TRUE(isFieldProblem(call("GET", run), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("DELETE", run), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("POST", run + "/stop"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("POST", run + "/resume"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("GET", run + "/events"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("GET", run + "/results"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("GET", run + "/results.csv"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("GET", run + "/winners"), 404, "id"));
    EXPECT_TRUE(isFieldProblem(call("GET", run + "/charts"), 404, "id"));
  }
}

TEST_F(ControlApiTest, RunListParametersAreChecked) {
  for (const auto& [query, field] :
       std::vector<std::pair<std::string, std::string>>{{"status=done", "status"},
                                                        {"limit=0", "limit"},
                                                        {"limit=1001", "limit"},
                                                        {"limit=abc", "limit"},
                                                        {"limit=", "limit"},
                                                        {"limit=%2B5", "limit"},
                                                        {"offset=-1", "offset"},
                                                        {"offset=1e3", "offset"}}) {
    SCOPED_TRACE(query);
    EXPECT_TRUE(isFieldProblem(call("GET", "/api/v1/runs?" + query), 400, field));
  }
  finishedRun({});
  const http::Response page = call("GET", "/api/v1/runs?status=completed&limit=1&offset=0");
  ASSERT_EQ(page.status, 200U) << page.body;
  EXPECT_NE(page.body.find(R"("total":1)"), std::string::npos) << page.body;
  EXPECT_NE(page.body.find(R"("limit":1)"), std::string::npos) << page.body;
}

TEST_F(ControlApiTest, AFinishedRunCannotBeStoppedAndIsDeletedWithItsFolderOnly) {
  const fs::path inside = dir_.path() / "state" / "results" / "run-1";
  const store::RunId run = finishedRun(inside);
  const std::string target = "/api/v1/runs/" + std::to_string(run);
  EXPECT_TRUE(isFieldProblem(call("POST", target + "/stop"), 409, "id"));
  EXPECT_EQ(call("DELETE", target).status, 204U);
  EXPECT_FALSE(fs::exists(inside));
  EXPECT_TRUE(isFieldProblem(call("GET", target), 404, "id"));

  // A folder outside the daemon's results folder (a tampered store) is left alone.
  const fs::path outside = dir_.path() / "elsewhere";
  const store::RunId foreign = finishedRun(outside);
  EXPECT_EQ(call("DELETE", "/api/v1/runs/" + std::to_string(foreign)).status, 204U);
  EXPECT_TRUE(fs::exists(outside));
}

TEST_F(ControlApiTest, OnlyARunThatEndedUnfinishedWithItsRequestKnownCanBeResumed) {
  const store::RunId completed = finishedRun({});
  const http::Response done = call("POST", "/api/v1/runs/" + std::to_string(completed) + "/resume");
  EXPECT_TRUE(isFieldProblem(done, 409, "id"));
  EXPECT_NE(done.body.find("completed: it has every run it asked for"), std::string::npos)
      << done.body;

  // Stored by a benchd that kept no request.
  store::NewRun old_run;
  old_run.scenario_file = "scenarios-ci.csv";
  old_run.scenario_set = "scenarios-ci";
  old_run.approaches = {"callbacks-asio"};
  const store::RunId old_id = store_.createRun(old_run);
  store_.finishRun(old_id, store::RunStatus::kInterrupted, "gone", 1);
  const http::Response old = call("POST", "/api/v1/runs/" + std::to_string(old_id) + "/resume");
  EXPECT_TRUE(isFieldProblem(old, 422, "id"));
  EXPECT_NE(old.body.find("start it anew"), std::string::npos) << old.body;

  // A request it cannot read back.
  store::NewRun garbled = old_run;
  garbled.request = R"({"version":1,"scenarioFile":5})";
  const store::RunId garbled_id = store_.createRun(garbled);
  store_.finishRun(garbled_id, store::RunStatus::kStopped, "stopped on request", 1);
  const http::Response unreadable =
      call("POST", "/api/v1/runs/" + std::to_string(garbled_id) + "/resume");
  EXPECT_TRUE(isFieldProblem(unreadable, 422, "id"));
  EXPECT_NE(unreadable.body.find("'scenarioFile' is not a string"), std::string::npos)
      << unreadable.body;
  EXPECT_EQ(store_.findRun(garbled_id)->status, store::RunStatus::kStopped);
}

TEST_F(ControlApiTest, ResultDocumentsOfARunCheckTheirParameters) {
  const store::RunId run = finishedRun(dir_.path() / "state" / "results" / "run-1");
  const std::string target = "/api/v1/runs/" + std::to_string(run);
  EXPECT_TRUE(isFieldProblem(call("GET", target + "/results/row/approach/seconds?phase=later"), 400,
                             "phase"));
  for (const char* repeat : {"0", "2", "x", ""}) {  // 2: the run has one round
    EXPECT_TRUE(isFieldProblem(
        call("GET", target + "/results/row/approach/seconds?round=" + std::string(repeat)), 400,
        "round"))
        << repeat;
  }
  EXPECT_TRUE(
      isFieldProblem(call("GET", target + "/results/row/approach/seconds"), 404, "scenario"));
  EXPECT_TRUE(isFieldProblem(call("GET", target + "/results.md"), 404, "file"));
  EXPECT_TRUE(isFieldProblem(call("GET", target + "/charts/results.md"), 404, "file"));
  EXPECT_TRUE(isFieldProblem(call("GET", target + "/charts/results.png"), 404, "file"));
  const http::Response csv = call("GET", target + "/results.csv");
  EXPECT_EQ(csv.status, 200U);
  EXPECT_EQ(csv.headers.get("Content-Type"), "text/csv; charset=utf-8");
  EXPECT_TRUE(isFieldProblem(call("GET", target + "/events", {}, {}, {{"Last-Event-ID", "later"}}),
                             400, "Last-Event-ID"));
  const http::Response stream = call("GET", target + "/events", {}, {}, {{"Last-Event-ID", "0"}});
  EXPECT_EQ(stream.status, 200U);
  EXPECT_TRUE(stream.stream.has_value());
}

TEST_F(ControlApiTest, CompareNeedsTwoRunsThatExist) {
  const store::RunId run = finishedRun({});
  const std::string base = "base=" + std::to_string(run);
  EXPECT_TRUE(isFieldProblem(call("GET", "/api/v1/compare"), 400, "base"));
  EXPECT_TRUE(isFieldProblem(call("GET", "/api/v1/compare?" + base), 400, "other"));
  EXPECT_TRUE(isFieldProblem(call("GET", "/api/v1/compare?base=x&other=1"), 400, "base"));
  EXPECT_TRUE(isFieldProblem(call("GET", "/api/v1/compare?" + base + "&other=999"), 404, "other"));
  EXPECT_TRUE(isFieldProblem(
      call("GET", "/api/v1/compare?" + base + "&other=" + std::to_string(run) + "&threshold=-1"),
      400, "threshold"));
  EXPECT_EQ(call("GET", "/api/v1/compare?" + base + "&other=" + std::to_string(run)).status, 200U);
}

TEST_F(ControlApiTest, ScenarioFileNamesThatAreNoLibraryNamesAreRefused) {
  for (const std::string& name :
       std::vector<std::string>{"x.txt", ".hidden.csv", "evil", ".csv", "evil.CSV", "a%20b.csv",
                                "-", std::string(300, 'x') + ".csv"}) {
    SCOPED_TRACE(name);
    const std::string target = "/api/v1/scenario-files/" + name;
    EXPECT_TRUE(isFieldProblem(call("PUT", target, kValidCsv, "text/csv"), 400, "name"));
    EXPECT_TRUE(isFieldProblem(call("GET", target), 404, "name"));
    EXPECT_TRUE(isFieldProblem(call("DELETE", target), 404, "name"));
  }
  const fs::path uploads = dir_.path() / "state" / "scenario-files";
  EXPECT_TRUE(!fs::exists(uploads) || fs::is_empty(uploads)) << "a refused upload was stored";
}

TEST_F(ControlApiTest, ScenarioFileUploadsAreCheckedStoredReplacedAndRemoved) {
  const std::string target = "/api/v1/scenario-files/mine.csv";
  const http::Response wrong_type = call("PUT", target, kValidCsv, "application/json");
  EXPECT_EQ(wrong_type.status, 415U);
  EXPECT_EQ(wrong_type.headers.get("Accept-Post"), "text/csv");

  const http::Response bad =
      call("PUT", target, std::string(kScenarioCsvHeader) + "one,get-time.js,,0,0,zero,,0,1\n",
           "text/csv");
  ASSERT_TRUE(isFieldProblem(bad, 400, "body"));
  EXPECT_NE(bad.body.find(R"("line":2)"), std::string::npos) << bad.body;
  EXPECT_NE(bad.body.find(R"("column":6)"), std::string::npos) << bad.body;
  EXPECT_TRUE(isFieldProblem(call("GET", target), 404, "name"));

  EXPECT_TRUE(isFieldProblem(
      call("PUT", "/api/v1/scenario-files/scenarios-ci.csv", kValidCsv, "text/csv"), 409, "name"));
  EXPECT_TRUE(
      isFieldProblem(call("DELETE", "/api/v1/scenario-files/scenarios-ci.csv"), 409, "name"));

  const http::Response stored = call("PUT", target, kValidCsv, "text/csv; charset=utf-8");
  EXPECT_EQ(stored.status, 201U) << stored.body;
  EXPECT_EQ(stored.headers.get("Location"), target);
  const http::Response csv = call("GET", target, {}, {}, {{"Accept", "text/csv"}});
  EXPECT_EQ(csv.status, 200U);
  EXPECT_EQ(csv.body, kValidCsv);
  EXPECT_EQ(call("PUT", target, kValidCsv, "text/csv").status, 200U) << "replaced";
  EXPECT_EQ(call("DELETE", target).status, 204U);
  EXPECT_TRUE(isFieldProblem(call("GET", target), 404, "name"));
  EXPECT_TRUE(isFieldProblem(call("DELETE", target), 404, "name"));
}

TEST_F(ControlApiTest, ARescanThatCannotSearchAFolderAnswers500NamingIt) {
  EXPECT_EQ(call("POST", "/api/v1/approaches/rescan").status, 200U);
  fs::remove(dir_.path() / "plugins");
  const http::Response failed = call("POST", "/api/v1/approaches/rescan");
  EXPECT_EQ(failed.status, 500U);
  EXPECT_EQ(failed.headers.get("Content-Type"), "application/problem+json");
  EXPECT_NE(failed.body.find((dir_.path() / "plugins").string()), std::string::npos) << failed.body;
}

}  // namespace
}  // namespace benchd::control
