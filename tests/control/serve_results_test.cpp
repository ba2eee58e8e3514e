// `benchd serve`'s resources beyond runs: scenario-file uploads, the result documents of a run
// (summary rows, seconds, results.csv/md, charts, winners, compare), resuming the event stream
// from the store, run pages, deletion and /metrics, against the real daemon over loopback.
#include "daemon_process.hpp"
#include "temp_dir.hpp"

#include <benchd/store/result_store.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <csignal>
#include <sstream>
#include <thread>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;

constexpr const char* kHeader =
    "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
    "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n";

rapidjson::Document parse(const HttpResponse& response) {
  rapidjson::Document document;
  document.Parse(response.body.c_str());
  EXPECT_FALSE(document.HasParseError()) << response.body;
  return document;
}

HttpResponse putCsv(const Daemon& daemon, const std::string& name, const std::string& text) {
  HttpConnection connection(daemon.port());
  return connection.request(
      "PUT", "/api/v1/scenario-files/" + name, text,
      {{"Authorization", "Bearer " + daemon.token()}, {"Content-Type", "text/csv"}});
}

/// Polls GET /api/v1/runs/{id} until `done(document)` holds or `timeout` passes.
template <typename Predicate>
bool waitForRun(const Daemon& daemon, int run, Predicate done, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const HttpResponse response = daemon.call("GET", "/api/v1/runs/" + std::to_string(run));
    if (response.status == 200 && done(parse(response))) {
      return true;
    }
    std::this_thread::sleep_for(200ms);
  }
  return false;
}

bool hasStatus(const rapidjson::Document& run, const char* status) {
  return run.HasMember("status") && std::string(run["status"].GetString()) == status;
}

/// The `id:` values of a raw event stream, in order.
std::vector<std::uint64_t> eventIds(const std::string& stream) {
  std::vector<std::uint64_t> ids;
  std::istringstream lines(stream);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("id: ", 0) == 0) {
      ids.push_back(std::stoull(line.substr(4)));
    }
  }
  return ids;
}

void stopDaemon(Daemon& daemon) {
  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
}

/// Opens an event stream and keeps it open until destroyed.
class HeldStream {
 public:
  HeldStream(std::uint16_t port, const std::string& token, int run)
      : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
      return;
    }
    const timeval receive_timeout{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &receive_timeout, sizeof(receive_timeout));
    const std::string request = "GET /api/v1/runs/" + std::to_string(run) +
                                "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                token + "\r\n\r\n";
    ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
    char head[512];
    const ssize_t got = ::recv(fd_, head, sizeof(head), 0);
    head_.assign(head, got > 0 ? static_cast<std::size_t>(got) : 0);
  }
  ~HeldStream() { ::close(fd_); }
  HeldStream(const HeldStream&) = delete;
  HeldStream& operator=(const HeldStream&) = delete;

  /// The first bytes the server sent (status line and headers).
  [[nodiscard]] const std::string& head() const { return head_; }

  /// Everything received so far, reading on until `marker` has arrived or `timeout` passed.
  std::string readUntil(const std::string& marker, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char chunk[4096];
    while (head_.find(marker) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
      const ssize_t got = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (got == 0) {
        break;
      }
      if (got > 0) {
        head_.append(chunk, static_cast<std::size_t>(got));
      }
    }
    return head_;
  }

 private:
  int fd_;
  std::string head_;
};

TEST(BenchdServeResults, AnUploadedFileRunsAndEveryResultDocumentIsServed) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();

  // Upload: a bad row is named by line and column and stores nothing; a good file is stored.
  const HttpResponse bad =
      putCsv(daemon, "mine.csv", std::string(kHeader) + "one,get-time,,0,0,zero,,0,1\n");
  ASSERT_EQ(bad.status, 400U) << bad.body;
  const rapidjson::Document bad_problem = parse(bad);
  EXPECT_EQ(bad_problem["line"].GetInt(), 2);
  EXPECT_EQ(bad_problem["column"].GetInt(), 6);
  EXPECT_EQ(daemon.call("GET", "/api/v1/scenario-files/mine.csv").status, 404U);
  EXPECT_EQ(
      putCsv(daemon, "scenarios-ci.csv", std::string(kHeader) + "a,get-time,,0,0,1,,0,1\n").status,
      409U);
  const std::string file =
      std::string(kHeader) + "one,get-time,,0,0,4,,0,2\ntwo,get-movies,,1,5,4,,1,2\n";
  const HttpResponse stored = putCsv(daemon, "mine.csv", file);
  ASSERT_EQ(stored.status, 201U) << stored.body;
  EXPECT_EQ(stored.header("location"), "/api/v1/scenario-files/mine.csv");
  EXPECT_EQ(parse(stored)["rowCount"].GetInt(), 2);
  const HttpResponse files = daemon.call("GET", "/api/v1/scenario-files");
  EXPECT_NE(files.body.find(R"("name":"mine.csv","source":"uploaded")"), std::string::npos)
      << files.body;
  EXPECT_NE(files.body.find(R"("name":"scenarios-ci.csv","source":"built-in")"), std::string::npos);

  const HttpResponse created = daemon.call(
      "POST", "/api/v1/runs", R"({"scenarioFile":"mine.csv","approaches":["callbacks-asio"]})");
  ASSERT_EQ(created.status, 202U) << created.body;
  const std::string live = followEvents(daemon.port(), daemon.token(), 1, 120s);
  ASSERT_NE(live.find("\"status\":\"completed\""), std::string::npos) << live;

  // Summary rows with their scenario rows and diagnostics.
  const rapidjson::Document results = parse(daemon.call("GET", "/api/v1/runs/1/results"));
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
      parse(daemon.call("GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds"));
  EXPECT_GE(seconds["seconds"].Size(), 2U);
  EXPECT_GT(seconds["seconds"][0]["requestsPerSecond"]["ok"].GetDouble(), 0.0);
  EXPECT_GE(parse(daemon.call(
                "GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?phase=warmup"))["seconds"]
                .Size(),
            1U);
  EXPECT_EQ(
      daemon.call("GET", "/api/v1/runs/1/results/two/callbacks-asio/seconds?phase=later").status,
      400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/runs/1/results/three/callbacks-asio/seconds").status, 404U);

  // The winners grid: 28 metrics × 2 scenarios, one approach that takes every contest.
  const rapidjson::Document winners = parse(daemon.call("GET", "/api/v1/runs/1/winners"));
  EXPECT_EQ(winners["metrics"].Size(), 28U);
  EXPECT_EQ(winners["scenarios"].Size(), 2U);
  EXPECT_STREQ(winners["standings"][0]["approach"].GetString(), "callbacks-asio");
  EXPECT_EQ(winners["standings"][0]["rank"].GetInt(), 1);
  EXPECT_EQ(winners["contests"].GetInt(), 56);

  // A run compared with itself changes nothing.
  const rapidjson::Document same = parse(daemon.call("GET", "/api/v1/compare?base=1&other=1"));
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
    const rapidjson::Document listed = parse(daemon.call("GET", "/api/v1/runs/1/charts"));
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
  EXPECT_GE(count(replayed, "event: snapshot"), count(live, "event: snapshot"));
  EXPECT_GE(count(replayed, "event: snapshot"), 4U) << "2 rows of 2 s tests, a snapshot a second";
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
  stopDaemon(daemon);
}

TEST(BenchdServeResults, RunsArePagedAndFilteredAndActiveOnesCannotBeDeleted) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);

  const rapidjson::Document queued = parse(daemon.call("GET", "/api/v1/runs?status=queued"));
  ASSERT_EQ(queued["runs"].Size(), 1U);
  EXPECT_EQ(queued["runs"][0]["id"].GetInt(), 2);
  EXPECT_EQ(queued["runs"][0]["queuePosition"].GetInt(), 1);
  const rapidjson::Document page = parse(daemon.call("GET", "/api/v1/runs?limit=1&offset=1"));
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
  HeldStream waiting(daemon.port(), daemon.token(), 2);
  ASSERT_EQ(waiting.head().rfind("HTTP/1.1 200", 0), 0U) << waiting.head();
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 200U);
  const std::string ended = waiting.readUntil("event: end", 20s);
  EXPECT_NE(ended.find("event: end"), std::string::npos) << ended;
  EXPECT_NE(ended.find("stopped before it started"), std::string::npos) << ended;
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
  ASSERT_TRUE(waitForRun(
      daemon, 1, [](const rapidjson::Document& run) { return hasStatus(run, "stopped"); }, 60s));
  EXPECT_EQ(parse(daemon.call("GET", "/api/v1/runs?status=stopped"))["total"].GetInt(), 2);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/2").status, 204U);
  EXPECT_EQ(daemon.call("DELETE", "/api/v1/runs/1").status, 204U);
  EXPECT_EQ(parse(daemon.call("GET", "/api/v1/runs"))["total"].GetInt(), 0);
  const HttpResponse idle = daemon.call("GET", "/metrics");
  EXPECT_NE(idle.body.find("benchd_run_active 0\n"), std::string::npos) << idle.body;
  stopDaemon(daemon);
}

TEST(BenchdServeResults, ConfiguredLimitsAnswer503AndPlainRequestsStillPass) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "max_streams = 2\nmax_queued = 1\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  ASSERT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 202U);
  const HttpResponse full = daemon.call("POST", "/api/v1/runs", request);
  EXPECT_EQ(full.status, 503U) << full.body;
  EXPECT_EQ(full.header("content-type"), "application/problem+json");
  EXPECT_FALSE(full.header("retry-after").empty());

  const HeldStream first(daemon.port(), daemon.token(), 1);
  const HeldStream second(daemon.port(), daemon.token(), 1);
  EXPECT_EQ(first.head().rfind("HTTP/1.1 200", 0), 0U) << first.head();
  EXPECT_EQ(second.head().rfind("HTTP/1.1 200", 0), 0U) << second.head();
  const HeldStream third(daemon.port(), daemon.token(), 1);
  EXPECT_EQ(third.head().rfind("HTTP/1.1 503", 0), 0U) << third.head();
  // Open streams never starve plain requests.
  for (int index = 0; index < 20; ++index) {
    ASSERT_EQ(daemon.call("GET", "/api/v1/runs/1").status, 200U);
  }
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 200U);
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
  stopDaemon(daemon);
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
  stopDaemon(daemon);
}

TEST(BenchdServeResults, NoWaitingRoomStillTakesARunWhenIdle) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "max_queued = 0\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string request =
      R"({"scenarioFile":"scenarios-ci","approaches":["callbacks-asio"],"warmupSeconds":0,"testSeconds":30})";
  const HttpResponse first = daemon.call("POST", "/api/v1/runs", request);
  EXPECT_EQ(first.status, 202U) << first.body;
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs", request).status, 503U);
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/1/stop").status, 202U);
  stopDaemon(daemon);
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
  daemon.process().drainOutput(500ms);
  EXPECT_NE(daemon.process().stderrText().find("benchd: error: plugin rescan failed"),
            std::string::npos)
      << daemon.process().stderrText();
  stopDaemon(daemon);
}

}  // namespace
}  // namespace benchd::control
