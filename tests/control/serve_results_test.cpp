// `benchd serve`'s resources beyond runs: scenario-file uploads, the result documents of a run
// (summary rows, seconds, results.csv/md, charts, winners, compare), resuming the event stream
// from the store, resuming a stopped run, run pages, deletion and /metrics, against the real
// daemon over loopback.
#include "daemon_process.hpp"
#include "temp_dir.hpp"

#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;
using benchd::testing::kScenarioCsvHeader;

/// PUT /api/v1/scenario-files/{name} as CSV.
HttpResponse putCsv(const Daemon& daemon, const std::string& name, const std::string& text) {
  return daemon.put("/api/v1/scenario-files/" + name, text, "text/csv");
}

TEST(BenchdServeResults, AnUploadedFileRunsAndEveryResultDocumentIsServed) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();

  // Upload: a bad row is named by line and column and stores nothing; a good file is stored.
  const HttpResponse bad =
      putCsv(daemon, "mine.csv", std::string(kScenarioCsvHeader) + "one,get-time,,0,0,zero,,0,1\n");
  ASSERT_EQ(bad.status, 400U) << bad.body;
  const rapidjson::Document bad_problem = jsonBody(bad);
  EXPECT_EQ(bad_problem["line"].GetInt(), 2);
  EXPECT_EQ(bad_problem["column"].GetInt(), 6);
  EXPECT_EQ(daemon.call("GET", "/api/v1/scenario-files/mine.csv").status, 404U);
  EXPECT_EQ(putCsv(daemon, "scenarios-ci.csv",
                   std::string(kScenarioCsvHeader) + "a,get-time,,0,0,1,,0,1\n")
                .status,
            409U);
  const std::string file =
      std::string(kScenarioCsvHeader) + "one,get-time,,0,0,4,,0,2\ntwo,get-movies,,1,5,4,,1,2\n";
  const HttpResponse stored = putCsv(daemon, "mine.csv", file);
  ASSERT_EQ(stored.status, 201U) << stored.body;
  EXPECT_EQ(stored.header("location"), "/api/v1/scenario-files/mine.csv");
  EXPECT_EQ(jsonBody(stored)["rowCount"].GetInt(), 2);
  const HttpResponse files = daemon.call("GET", "/api/v1/scenario-files");
  EXPECT_NE(files.body.find(R"("name":"mine.csv","source":"uploaded")"), std::string::npos)
      << files.body;
  EXPECT_NE(files.body.find(R"("name":"scenarios-ci.csv","source":"built-in")"), std::string::npos);

  const HttpResponse created =
      daemon.call("POST", "/api/v1/runs",
                  R"({"repeat":1,"scenarioFile":"mine.csv","approaches":["callbacks-asio"]})");
  ASSERT_EQ(created.status, 202U) << created.body;
  const std::string live = followEvents(daemon.port(), daemon.token(), 1, 120s);
  ASSERT_NE(live.find("\"status\":\"completed\""), std::string::npos) << live;

  // Summary rows with their scenario rows and diagnostics.
  const rapidjson::Document results = jsonBody(daemon.call("GET", "/api/v1/runs/1/results"));
  ASSERT_EQ(results["rows"].Size(), 2U);
  EXPECT_EQ(results["scenarios"].Size(), 2U);
  EXPECT_STREQ(results["rows"][1]["scenario"].GetString(), "two");
  EXPECT_GT(results["rows"][0]["metrics"]["requests_ok"].GetDouble(), 0.0);
  EXPECT_TRUE(results["rows"][0]["diagnostics"].IsObject());

  // results.csv from the store equals the run's file; results.md is the run's.
  const HttpResponse csv = daemon.call("GET", "/api/v1/runs/1/results.csv");
  EXPECT_EQ(csv.status, 200U);
  EXPECT_EQ(csv.header("content-type"), "text/csv; charset=utf-8");
  std::ifstream written(dir.path() / "state" / "results" / "run-1" / "results.csv");
  std::ostringstream written_text;
  written_text << written.rdbuf();
  EXPECT_EQ(csv.body, written_text.str());
  const HttpResponse markdown = daemon.call("GET", "/api/v1/runs/1/results.md");
  EXPECT_EQ(markdown.status, 200U);
  EXPECT_EQ(markdown.body.rfind("# mine", 0), 0U) << markdown.body.substr(0, 100);

  // Per-second series of one (row, approach).
  const rapidjson::Document seconds =
      jsonBody(daemon.call("GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds"));
  EXPECT_GE(seconds["seconds"].Size(), 2U);
  EXPECT_GT(seconds["seconds"][0]["requestsPerSecond"]["ok"].GetDouble(), 0.0);
  EXPECT_GE(jsonBody(daemon.call(
                "GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?phase=warmup"))["seconds"]
                .Size(),
            1U);
  EXPECT_EQ(
      daemon.call("GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?phase=later").status,
      400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1/results/three/callbacks-asio/seconds").status, 404U);
  // One run per row here: its seconds are run 1's, and there is no run 2.
  EXPECT_EQ(seconds["round"].GetUint(), 1U);
  EXPECT_EQ(jsonBody(daemon.call(
                "GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?round=1"))["seconds"]
                .Size(),
            seconds["seconds"].Size());
  // A round the run never had is a bad parameter (the run's repeats bound it).
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?round=2").status,
            400U);
  // The stored second carries the host's size, so what the rest of the host used can be told.
  EXPECT_GE(seconds["seconds"][0]["host"]["cpus"].GetUint(), 1U);
  EXPECT_GT(seconds["seconds"][0]["host"]["ramTotalBytes"].GetUint64(), 0U);

  // The winners grid: 28 metrics × 2 scenarios, one approach that takes every contest.
  const rapidjson::Document winners = jsonBody(daemon.call("GET", "/api/v1/runs/1/winners"));
  EXPECT_EQ(winners["metrics"].Size(), 28U);
  EXPECT_EQ(winners["scenarios"].Size(), 2U);
  EXPECT_STREQ(winners["standings"][0]["approach"].GetString(), "callbacks-asio");
  EXPECT_EQ(winners["standings"][0]["rank"].GetInt(), 1);
  EXPECT_EQ(winners["contests"].GetInt(), 56);

  // A run compared with itself changes nothing.
  const rapidjson::Document same = jsonBody(daemon.call("GET", "/api/v1/compare?base=1&other=1"));
  EXPECT_EQ(same["groups"].Size(), 2U);
  for (const auto& group : same["groups"].GetArray()) {
    EXPECT_EQ(group["improved"].GetInt() + group["regressed"].GetInt(), 0);
  }
  EXPECT_EQ(daemon.call("GET", "/api/v1/compare?base=1").status, 400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/compare?base=1&other=99").status, 404U);

  // Charts: whatever PNGs the run's folder holds (benchd-report renders them after the run
  // when it is built; without Qt there are none), nothing else.
  const fs::path run_folder = dir.path() / "state" / "results" / "run-1";
  const auto pngsInFolder = [&run_folder] {
    std::vector<std::string> names;
    for (const auto& entry : fs::recursive_directory_iterator(run_folder)) {
      if (entry.path().extension() == ".png") {
        names.push_back(fs::relative(entry.path(), run_folder).string());
      }
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto chartsListed = [&daemon] {
    std::vector<std::string> names;
    const rapidjson::Document listed = jsonBody(daemon.call("GET", "/api/v1/runs/1/charts"));
    for (const auto& chart : listed["charts"].GetArray()) {
      names.emplace_back(chart["name"].GetString());
    }
    std::sort(names.begin(), names.end());
    return names;
  };
  EXPECT_EQ(chartsListed(), pngsInFolder());
  if (!fs::exists(run_folder / "results.png")) {
    std::ofstream(run_folder / "results.png") << "\x89PNG";
  }
  std::ofstream(run_folder / "extra.png") << "\x89PNG";
  std::ofstream(run_folder / "notes.txt") << "not a chart";
  const std::vector<std::string> listed = chartsListed();
  EXPECT_EQ(listed, pngsInFolder());
  EXPECT_NE(std::find(listed.begin(), listed.end(), "extra.png"), listed.end());
  EXPECT_EQ(std::find(listed.begin(), listed.end(), "notes.txt"), listed.end());
  const HttpResponse png = daemon.call("GET", "/api/v1/runs/1/charts/results.png");
  EXPECT_EQ(png.status, 200U);
  EXPECT_EQ(png.header("content-type"), "image/png");
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1/charts/results.md").status, 404U);

  // Resuming: from the start, the stored events are the live ones, numbered 1, 2, 3, ...
  const std::string replayed = followEvents(daemon.port(), daemon.token(), 1, 30s, "0");
  const std::vector<std::uint64_t> ids = eventIds(replayed);
  ASSERT_FALSE(ids.empty()) << replayed;
  for (std::size_t index = 0; index < ids.size(); ++index) {
    EXPECT_EQ(ids[index], index + 1);
  }
  // The live stream began when the client connected (after the run had started): its events
  // are the stored ones from some point on.
  const std::vector<std::uint64_t> live_ids = eventIds(live);
  ASSERT_FALSE(live_ids.empty());
  ASSERT_LE(live_ids.size(), ids.size());
  EXPECT_TRUE(std::equal(live_ids.rbegin(), live_ids.rend(), ids.rbegin()));
  EXPECT_GE(occurrences(replayed, "event: snapshot"), occurrences(live, "event: snapshot"));
  EXPECT_GE(occurrences(replayed, "event: snapshot"), 4U)
      << "2 rows of 2 s tests, a snapshot a second";
  // From the second last event on: only the end.
  const std::string tail =
      followEvents(daemon.port(), daemon.token(), 1, 30s, std::to_string(ids.size() - 1));
  EXPECT_EQ(eventIds(tail), std::vector<std::uint64_t>{ids.size()}) << tail;
  EXPECT_NE(tail.find("event: end"), std::string::npos);
  EXPECT_EQ(followEvents(daemon.port(), daemon.token(), 1, 3s, "later").rfind("HTTP/1.1 400", 0),
            0U);

  // Deleting a finished run removes it, its documents and its folder.
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/1").status, 204U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1").status, 404U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1/results").status, 404U);
  EXPECT_FALSE(fs::exists(dir.path() / "state" / "results" / "run-1"));
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/1").status, 404U);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/scenario-files/mine.csv").status, 204U);
  daemon.stop();
}

/// A capacity row through the API: the resolution is checked, every trial is streamed as a
/// `trial` event and served by the trials route, the result carries the search, and the scenario
/// row its goal. benchd.max_rate=400 gives the worker a known capacity.
TEST(BenchdServeResults, ACapacityRowStreamsItsTrialsAndServesItsSearch) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string file =
      "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
      "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds,capacityGoal\n"
      "held,get-time-arrival-rate,,0,0,50,200,1,1,p99<=50ms\n";
  ASSERT_EQ(putCsv(daemon, "capacity.csv", file).status, 201U);
  const HttpResponse refused =
      daemon.call("POST", "/api/v1/runs",
                  R"({"repeat":1,"scenarioFile":"capacity.csv","capacityResolutionPercent":0.1})");
  ASSERT_EQ(refused.status, 400U) << refused.body;
  EXPECT_STREQ(jsonBody(refused)["field"].GetString(), "capacityResolutionPercent");
  EXPECT_NE(refused.body.find("from 0.5 to 50"), std::string::npos) << refused.body;

  const HttpResponse created = daemon.call(
      "POST", "/api/v1/runs",
      R"({"repeat":1,"scenarioFile":"capacity.csv",)"
      R"("approaches":["callbacks-asio[benchd.max_rate=400]"],"capacityResolutionPercent":25})");
  ASSERT_EQ(created.status, 202U) << created.body;
  const int run = jsonBody(created)["id"].GetInt();
  const std::string live = followEvents(daemon.port(), daemon.token(), run, 180s);
  ASSERT_NE(live.find("\"status\":\"completed\""), std::string::npos) << live;
  std::size_t trial_events = 0;
  for (const StreamEvent& event : parseEvents(live)) {
    if (event.type == "trial") {
      ++trial_events;
      const rapidjson::Document data = parseJson(event.data);
      EXPECT_STREQ(data["scenario"].GetString(), "held");
      EXPECT_EQ(data["trial"]["trial"].GetUint64(), trial_events);
    }
  }

  const std::string base = "/api/v1/runs/" + std::to_string(run);
  const rapidjson::Document results = jsonBody(daemon.call("GET", base + "/results"));
  ASSERT_EQ(results["rows"].Size(), 1U);
  EXPECT_STREQ(results["scenarios"][0]["capacityGoal"].GetString(), "p99<=50ms");
  const rapidjson::Value& capacity = results["rows"][0]["capacity"];
  ASSERT_TRUE(capacity.IsObject()) << daemon.call("GET", base + "/results").body;
  EXPECT_STREQ(capacity["verdict"].GetString(), "found");
  EXPECT_DOUBLE_EQ(capacity["resolution"].GetDouble(), 0.25);
  const double found = capacity["requestsPerSecond"].GetDouble();
  EXPECT_GE(found, 400.0 / 1.25 - 1.0);
  EXPECT_LE(found, 400.0 * 1.05);
  EXPECT_EQ(capacity["trials"].GetUint64(), trial_events);

  const rapidjson::Document trials = jsonBody(
      daemon.call("GET", base + "/results/held/callbacks-asio%5Bbenchd.max_rate%3D400%5D/trials"));
  ASSERT_TRUE(trials["trials"].IsArray());
  ASSERT_EQ(trials["trials"].Size(), trial_events);
  EXPECT_EQ(trials["trials"][0]["intendedRequestsPerSecond"].GetDouble(), 200.0);
  EXPECT_STREQ(trials["trials"][0]["outcome"].GetString(), "pass");
  EXPECT_TRUE(trials["trials"][trials["trials"].Size() - 1]["confirmation"].GetBool());
  // results.csv from the store has the rate in its extra column.
  const HttpResponse csv = daemon.call("GET", base + "/results.csv");
  EXPECT_NE(csv.body.find(",requests_per_second_capacity\n"), std::string::npos) << csv.body;
}

TEST(BenchdServeResults, RunsArePagedAndFilteredAndActiveOnesCannotBeDeleted) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"repeat":1,"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);

  const rapidjson::Document queued = jsonBody(daemon.call("GET", "/api/v1/runs?status=queued"));
  ASSERT_EQ(queued["runs"].Size(), 1U);
  EXPECT_EQ(queued["runs"][0]["id"].GetInt(), 2);
  EXPECT_EQ(queued["runs"][0]["queuePosition"].GetInt(), 1);
  const rapidjson::Document page = jsonBody(daemon.call("GET", "/api/v1/runs?limit=1&offset=1"));
  EXPECT_EQ(page["total"].GetInt(), 2);
  ASSERT_EQ(page["runs"].Size(), 1U);
  EXPECT_EQ(page["runs"][0]["id"].GetInt(), 1) << "newest first";
  for (const char* bad : {"/api/v1/runs?status=done", "/api/v1/runs?limit=0",
                          "/api/v1/runs?limit=abc", "/api/v1/runs?offset=-1"}) {
    const HttpResponse refused = daemon.call("GET", bad);
    EXPECT_EQ(refused.status, 400U) << bad;
    EXPECT_NE(refused.body.find("\"field\""), std::string::npos) << refused.body;
  }

  // Running and waiting runs cannot be deleted.
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/1").status, 409U);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/2").status, 409U);

  // /metrics shows the queue and, once the test phase has a second, the live numbers.
  ASSERT_TRUE(waitForRun(
      daemon, 1,
      [](const rapidjson::Document& run) {
        return run.HasMember("progress") &&
               std::string(run["progress"]["step"].GetString()) == "test" &&
               run["progress"]["phaseElapsedSeconds"].GetDouble() >= 2.0;
      },
      90s));
  const HttpResponse metrics = daemon.call("GET", "/metrics");
  EXPECT_EQ(metrics.status, 200U);
  EXPECT_EQ(metrics.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics.body.find("benchd_queue_length 1\n"), std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("benchd_run_active 1\n"), std::string::npos);
  EXPECT_NE(metrics.body.find("benchd_live_requests_per_second{outcome=\"ok\"}"),
            std::string::npos);
  EXPECT_EQ(metrics.body.find("benchd_live_requests_per_second{outcome=\"ok\"} 0\n"),
            std::string::npos);
  EXPECT_EQ(daemon.call("GET", "/metrics", {}, false).status, 401U);

  // A waiting run that is stopped ends its event stream too.
  EventStream waiting(daemon.port(), daemon.token(), 2);
  ASSERT_EQ(waiting.received().rfind("HTTP/1.1 200", 0), 0U) << waiting.received();
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 200U);
  const std::string ended = waiting.readUntilEnd(20s);
  EXPECT_NE(ended.find("event: end"), std::string::npos) << ended;
  EXPECT_NE(ended.find("stopped before it started"), std::string::npos) << ended;
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
  ASSERT_TRUE(waitForStatus(daemon, 1, "stopped", 60s));
  EXPECT_EQ(jsonBody(daemon.call("GET", "/api/v1/runs?status=stopped"))["total"].GetInt(), 2);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/2").status, 204U);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/1").status, 204U);
  EXPECT_EQ(jsonBody(daemon.call("GET", "/api/v1/runs"))["total"].GetInt(), 0);
  const HttpResponse idle = daemon.call("GET", "/metrics");
  EXPECT_NE(idle.body.find("benchd_run_active 0\n"), std::string::npos) << idle.body;
  daemon.stop();
}

TEST(BenchdServeResults, AStoppedRunIsResumedUnderItsIdAndItsEventsGoOn) {
  const benchd::testing::TempDir dir;
  {
    Daemon daemon(dir.path());
    ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
    ASSERT_EQ(putCsv(daemon, "resumable.csv",
                     std::string(kScenarioCsvHeader) +
                         "one,get-time,,0,0,4,,0,1\ntwo,get-time,,0,0,4,,0,4\n")
                  .status,
              201U);
    ASSERT_EQ(
        daemon
            .call("POST", "/api/v1/runs",
                  R"({"repeat":1,"scenarioFile":"resumable.csv","approaches":["callbacks-asio"]})")
            .status,
        202U);
    ASSERT_TRUE(waitForStep(daemon, 1, "two", "test", 90s)) << runStatus(daemon, 1);
    EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
    ASSERT_TRUE(waitForStatus(daemon, 1, "stopped", 60s)) << runStatus(daemon, 1);
    ASSERT_EQ(jsonBody(daemon.call("GET", "/api/v1/runs/1/results"))["rows"].Size(), 1U);

    const HttpResponse resumed = daemon.call("POST", "/api/v1/runs/1/resume");
    ASSERT_EQ(resumed.status, 202U) << resumed.body;
    const rapidjson::Document run = jsonBody(resumed);
    EXPECT_EQ(run["resumes"].GetInt(), 1);
    EXPECT_TRUE(stringMember(run, "status") == "queued" || stringMember(run, "status") == "running")
        << resumed.body;
    EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/resume").status, 409U) << "already queued";
    ASSERT_TRUE(waitForStatus(daemon, 1, "completed", 90s)) << runStatus(daemon, 1);
    const rapidjson::Document results = jsonBody(daemon.call("GET", "/api/v1/runs/1/results"));
    ASSERT_EQ(results["rows"].Size(), 2U);
    EXPECT_EQ(stringMember(results["rows"][1], "scenario"), "two");
    const HttpResponse markdown = daemon.call("GET", "/api/v1/runs/1/results.md");
    EXPECT_NE(markdown.body.find("This run was resumed 1 time"), std::string::npos)
        << markdown.body.substr(0, 600);
    const HttpResponse again = daemon.call("POST", "/api/v1/runs/1/resume");
    EXPECT_EQ(again.status, 409U) << again.body;
    EXPECT_NE(again.body.find("completed"), std::string::npos) << again.body;
    daemon.stop();
  }
  // One stream of events: numbered 1, 2, 3, ... across the stop and the resumption, ending
  // once stopped and once completed.
  const store::ResultStore store(dir.path() / "state" / "benchd.sqlite");
  const std::vector<store::StoredEvent> events = store.events(1, 0);
  std::vector<std::string> ends;
  for (std::size_t index = 0; index < events.size(); ++index) {
    EXPECT_EQ(events[index].sequence, index + 1);
    if (events[index].type == "end") {
      ends.push_back(events[index].data);
    }
  }
  ASSERT_EQ(ends.size(), 2U);
  EXPECT_NE(ends[0].find("stopped"), std::string::npos) << ends[0];
  EXPECT_NE(ends[1].find("completed"), std::string::npos) << ends[1];
  EXPECT_EQ(events.back().type, "end");
}

TEST(BenchdServeResults, ConfiguredLimitsAnswer503AndPlainRequestsStillPass) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "max_streams = 2\nmax_queued = 1\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"repeat":1,"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  const HttpResponse full = daemon.call("POST", "/api/v1/runs", request);
  EXPECT_EQ(full.status, 503U) << full.body;
  EXPECT_EQ(full.header("content-type"), "application/problem+json");
  EXPECT_FALSE(full.header("retry-after").empty());

  const EventStream first(daemon.port(), daemon.token(), 1);
  const EventStream second(daemon.port(), daemon.token(), 1);
  EXPECT_EQ(first.received().rfind("HTTP/1.1 200", 0), 0U) << first.received();
  EXPECT_EQ(second.received().rfind("HTTP/1.1 200", 0), 0U) << second.received();
  const EventStream third(daemon.port(), daemon.token(), 1);
  EXPECT_EQ(third.received().rfind("HTTP/1.1 503", 0), 0U) << third.received();
  // Open streams never starve plain requests.
  for (int index = 0; index < 20; ++index) {
    ASSERT_EQ(daemon.call("GET", "/api/v1/runs/1").status, 200U);
  }
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 200U);
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
  daemon.stop();
}

TEST(BenchdServeResults, AResumeFarBehindComesInPagesUntilTheEnd) {
  const benchd::testing::TempDir dir;
  constexpr std::uint64_t kEvents = 1500;  // about 1.5 MiB of snapshots: three pages
  {
    store::ResultStore store(dir.path() / "state" / "benchd.sqlite");
    store::NewRun record;
    record.scenario_file = "long.csv";
    record.scenario_set = "long";
    record.approaches = {"callbacks-asio"};
    const store::RunId run = store.createRun(record);
    const std::string padding(1000, 'x');
    for (std::uint64_t sequence = 1; sequence < kEvents; ++sequence) {
      store.addEvent(run, {sequence, "snapshot", R"({"padding":")" + padding + R"("})"});
    }
    store.addEvent(run, {kEvents, "end", R"({"status":"completed","error":""})"});
    store.finishRun(run, store::RunStatus::kCompleted, "", 1);
  }
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();

  std::vector<std::uint64_t> received;
  std::size_t pages = 0;
  while (pages < 10 && (received.empty() || received.back() != kEvents)) {
    const std::string page = followEvents(daemon.port(), daemon.token(), 1, 30s,
                                          std::to_string(received.empty() ? 0 : received.back()));
    const std::vector<std::uint64_t> ids = eventIds(page);
    ASSERT_FALSE(ids.empty()) << page.substr(0, 300);
    received.insert(received.end(), ids.begin(), ids.end());
    ++pages;
    if (ids.back() != kEvents) {
      EXPECT_NE(page.find(": more events follow"), std::string::npos);
    }
  }
  EXPECT_GE(pages, 3U);
  ASSERT_EQ(received.size(), kEvents);
  for (std::uint64_t index = 0; index < kEvents; ++index) {
    ASSERT_EQ(received[index], index + 1);
  }
  // A stale id past the end still hears that the run is over.
  const std::string stale = followEvents(daemon.port(), daemon.token(), 1, 10s, "99999");
  EXPECT_NE(stale.find("event: end"), std::string::npos) << stale;
  daemon.stop();
}

TEST(BenchdServeResults, NoWaitingRoomStillTakesARunWhenIdle) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "max_queued = 0\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"repeat":1,"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  const HttpResponse first = daemon.call("POST", "/api/v1/runs", request);
  EXPECT_EQ(first.status, 202U) << first.body;
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 503U);
  // Stopped while running (202), or, on a busy machine, before the run thread took it up (200).
  const unsigned stop_status = daemon.call("POST", "/api/v1/runs/1/stop").status;
  EXPECT_TRUE(stop_status == 202U || stop_status == 200U) << stop_status;
  daemon.stop();
}

TEST(BenchdServeResults, ARescanThatCannotSearchSaysWhyAndLogsIt) {
  const benchd::testing::TempDir dir;
  fs::create_directories(dir.path() / "drop-in");
  Daemon daemon(dir.path(), "plugin_dirs = " + (dir.path() / "drop-in").string() + "\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  EXPECT_EQ(daemon.call("POST", "/api/v1/approaches/rescan").status, 200U);
  fs::remove(dir.path() / "drop-in");
  const HttpResponse failed = daemon.call("POST", "/api/v1/approaches/rescan");
  EXPECT_EQ(failed.status, 500U);
  EXPECT_NE(failed.body.find("drop-in"), std::string::npos) << failed.body;
  EXPECT_TRUE(daemon.waitForLog("benchd: error: plugin rescan failed"))
      << daemon.process().stderrText();
  daemon.stop();
}

}  // namespace
}  // namespace benchd::control
