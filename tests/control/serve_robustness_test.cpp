// `benchd serve` under abuse, as a real process: an approach whose worker crashes in the middle
// of a run, the daemon killed (SIGKILL) or stopped (SIGTERM) in the middle of a run, thousands of
// malformed, hostile and slow requests. After each: the daemon answers (or, once killed, its
// successor does), no benchd-worker is left behind and the SQLite store passes its integrity
// check.
#include "build_paths.hpp"
#include "daemon_process.hpp"
#include "hostile_requests.hpp"
#include "loopback_socket.hpp"
#include "temp_dir.hpp"

#include <benchd/http/server.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <dirent.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <sys/syscall.h>
#include <thread>
#include <vector>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;
using benchd::testing::HostileExchange;
using benchd::testing::HostileFamily;
using benchd::testing::HostileRequest;
using benchd::testing::HostileTarget;
using benchd::testing::kScenarioCsvHeader;
using benchd::testing::LoopbackSocket;
using benchd::testing::printable;
using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// --- processes -----------------------------------------------------------------------------

struct ProcessInfo {
  pid_t parent = 0;
  char state = '?';
  std::string name;
};

/// /proc/<pid>/stat: name, state and parent; nullopt when there is no such process.
std::optional<ProcessInfo> processInfo(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(file, text);
  const std::size_t open = text.find('(');
  const std::size_t close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close + 2 >= text.size()) {
    return std::nullopt;
  }
  ProcessInfo info;
  info.name = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 2));
  long parent = 0;
  rest >> info.state >> parent;
  if (!rest) {
    return std::nullopt;
  }
  info.parent = static_cast<pid_t>(parent);
  return info;
}

/// The live benchd-worker processes whose parent is `parent` (the daemon).
std::vector<pid_t> workersOf(pid_t parent) {
  std::vector<pid_t> workers;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) {
    return workers;
  }
  while (const dirent* entry = ::readdir(proc)) {
    const std::string name = entry->d_name;
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (error != std::errc{} || end != name.data() + name.size()) {
      continue;
    }
    const std::optional<ProcessInfo> info = processInfo(pid);
    if (info && info->parent == parent && info->name == "benchd-worker" && info->state != 'Z') {
      workers.push_back(pid);
    }
  }
  ::closedir(proc);
  return workers;
}

/// Watches a process that is not this test's child (a worker of the daemon) through a pidfd,
/// opened while it runs, so a recycled pid can never be mistaken for it.
class ProcessWatch {
 public:
  explicit ProcessWatch(pid_t pid)
      : pid_(pid), fd_(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0))) {
    open_errno_ = fd_ < 0 ? errno : 0;
  }
  ~ProcessWatch() {
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  ProcessWatch(const ProcessWatch&) = delete;
  ProcessWatch& operator=(const ProcessWatch&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }

  /// True once the process has ended (exited or killed; a zombie or reaped) within `timeout`.
  [[nodiscard]] bool endsWithin(std::chrono::milliseconds timeout) const {
    if (fd_ >= 0) {
      pollfd poll_fd{fd_, POLLIN, 0};
      return ::poll(&poll_fd, 1, static_cast<int>(timeout.count())) == 1;
    }
    if (open_errno_ == ESRCH) {
      return true;  // gone before the watch began
    }
    return pollUntil(  // no pidfd_open in this kernel: /proc
        [this] {
          const std::optional<ProcessInfo> info = processInfo(pid_);
          return !info || info->state == 'Z' || info->state == 'X';
        },
        timeout);
  }

 private:
  pid_t pid_;
  int fd_;
  int open_errno_ = 0;
};

// --- the store -------------------------------------------------------------------------------

/// How the test opens the store: read-only beside a running daemon; read-write once no daemon
/// runs, so that SQLite may recover the write-ahead log a killed one left (as its successor will).
enum class Access { kReadOnly, kReadWrite };

/// The rows of `sql` on the store, every column as text. A failure is one row holding
/// "sqlite error: ...".
std::vector<std::vector<std::string>> query(const fs::path& file, const std::string& sql,
                                            Access access = Access::kReadOnly) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* connection = nullptr;
  sqlite3_stmt* statement = nullptr;
  int code = sqlite3_open_v2(
      file.c_str(), &connection,
      access == Access::kReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE, nullptr);
  if (code == SQLITE_OK) {
    sqlite3_busy_timeout(connection, 10'000);
    code = sqlite3_prepare_v2(connection, sql.c_str(), -1, &statement, nullptr);
  }
  while (code == SQLITE_OK || code == SQLITE_ROW) {
    code = sqlite3_step(statement);
    if (code == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int column = 0; column < sqlite3_column_count(statement); ++column) {
        const unsigned char* text = sqlite3_column_text(statement, column);
        row.emplace_back(text == nullptr ? "" : reinterpret_cast<const char*>(text));
      }
      rows.push_back(std::move(row));
    }
  }
  if (code != SQLITE_DONE) {
    rows.push_back(
        {"sqlite error: " +
         std::string(connection == nullptr ? "cannot open" : sqlite3_errmsg(connection))});
  }
  sqlite3_finalize(statement);
  sqlite3_close(connection);
  return rows;
}

/// The first column of the first row of `sql`; empty when there is none.
std::string scalar(const fs::path& file, const std::string& sql,
                   Access access = Access::kReadOnly) {
  const auto rows = query(file, sql, access);
  return rows.empty() || rows[0].empty() ? std::string() : rows[0][0];
}

/// PRAGMA integrity_check's lines, joined: "ok" for an intact store.
std::string integrityCheck(const fs::path& file, Access access = Access::kReadOnly) {
  std::string lines;
  for (const auto& row : query(file, "PRAGMA integrity_check", access)) {
    lines += (lines.empty() ? "" : "; ") + (row.empty() ? std::string() : row[0]);
  }
  return lines;
}

// --- a run that is surely caught in the middle -------------------------------------------------

/// A scenarios folder (the built-in workloads) with "interrupted.csv": a short first row that
/// finishes and is stored before anything happens to the daemon, and a long second one.
fs::path twoRowScenarios(const fs::path& dir) {
  fs::path folder = dir / "scenarios";
  const fs::path source = fs::path(benchd::testing::sourceDir()) / "scenarios";
  fs::create_directories(folder);
  fs::create_directory_symlink(source / "workloads", folder / "workloads");
  fs::create_symlink(source / "movies.json", folder / "movies.json");
  std::ofstream(folder / "interrupted.csv") << kScenarioCsvHeader
                                            << "short-get-time,get-time.js,,0,0,10,50,0,2\n"
                                               "long-get-time,get-time.js,,0,0,10,50,0,300\n";
  return folder;
}

constexpr const char* kInterruptedRun =
    R"({"repeat":1,"scenarioFile":"interrupted.csv","approaches":["callbacks-asio"]})";

/// Watches every benchd-worker the daemon has now; fails the test when there is none.
std::vector<std::unique_ptr<ProcessWatch>> watchWorkers(pid_t daemon) {
  std::vector<std::unique_ptr<ProcessWatch>> watches;
  for (const pid_t worker : workersOf(daemon)) {
    watches.push_back(std::make_unique<ProcessWatch>(worker));
  }
  EXPECT_FALSE(watches.empty()) << "no benchd-worker child of the daemon (pid " << daemon << ")";
  std::cout << "watching " << watches.size() << " benchd-worker(s) of the daemon\n";
  return watches;
}

// --- 1. a crashing approach ----------------------------------------------------------------------

/// crash-on-request answers /health, then abort()s on the answer check's first request: each of
/// its rows fails naming the signal, callbacks-asio's rows succeed, the run completes, and the
/// daemon takes the next run.
TEST(BenchdServeRobustness, CrashingPluginFailsItsRowAndTheRunGoesOn) {
  const benchd::testing::TempDir dir;
  const fs::path plugin_folder = fs::path(benchd::testing::testPluginDir()) / "crash-on-request";
  Daemon daemon(dir.path(), "plugin_dirs = " + plugin_folder.string() + "\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const HttpResponse approaches = daemon.call("GET", "/api/v1/approaches");
  ASSERT_NE(approaches.body.find(R"("name":"crash-on-request")"), std::string::npos)
      << approaches.body;

  const auto started = Clock::now();
  const HttpResponse created = daemon.call(
      "POST", "/api/v1/runs",
      R"({"repeat":1,"scenarioFile":"scenarios-ci.csv","approaches":["crash-on-request","callbacks-asio"],)"
      R"("warmupSeconds":0,"testSeconds":2})");
  ASSERT_EQ(created.status, 202U) << created.body;
  const std::vector<StreamEvent> events =
      parseEvents(followEvents(daemon.port(), daemon.token(), 1, 300s));
  std::cout << "run 1 (4 rows x 2 approaches) took " << secondsSince(started) << " s\n";

  std::size_t crashed_rows = 0;
  std::size_t healthy_rows = 0;
  for (const StreamEvent& event : events) {
    if (event.type != "row") {
      continue;
    }
    const rapidjson::Document row = parseJson(event.data);
    ASSERT_FALSE(row.HasParseError()) << event.data;
    const std::string approach = stringMember(row, "approach");
    const bool failed =
        row.HasMember("failed") && row["failed"].IsBool() && row["failed"].GetBool();
    const std::string reason = stringMember(row, "failureReason");
    const auto metric = [&](const char* name) {
      const auto metrics = row.FindMember("metrics");
      return metrics != row.MemberEnd() && metrics->value.HasMember(name) &&
                     metrics->value[name].IsNumber()
                 ? metrics->value[name].GetDouble()
                 : -1.0;
    };
    if (approach == "crash-on-request") {
      ++crashed_rows;
      EXPECT_TRUE(failed) << event.data;
      EXPECT_NE(reason.find("SIGABRT"), std::string::npos)
          << "the cause names the signal: " << reason;
      EXPECT_GE(metric("requests_error"), 1.0) << event.data;
      EXPECT_EQ(metric("requests_ok"), 0.0) << event.data;
    } else if (approach == "callbacks-asio") {
      ++healthy_rows;
      EXPECT_FALSE(failed) << reason;
      EXPECT_GT(metric("requests_ok"), 0.0) << event.data;
    } else {
      ADD_FAILURE() << "a row of an approach that was not asked for: " << event.data;
    }
  }
  EXPECT_EQ(crashed_rows, 4U);
  EXPECT_EQ(healthy_rows, 4U);
  EXPECT_EQ(endStatus(events), "completed");
  EXPECT_EQ(runStatus(daemon, 1), "completed");

  const fs::path store = dir.path() / "state" / "benchd.sqlite";
  EXPECT_EQ(integrityCheck(store), "ok");
  EXPECT_EQ(scalar(store,
                   "SELECT count(*) FROM result WHERE run_id = 1 AND finished = 1 AND failed = 1 "
                   "AND approach = 'crash-on-request' AND failure_reason LIKE '%SIGABRT%'"),
            "4");
  EXPECT_EQ(scalar(store,
                   "SELECT count(*) FROM result WHERE run_id = 1 AND finished = 1 AND failed = 0 "
                   "AND approach = 'callbacks-asio'"),
            "4");
  const HttpResponse csv = daemon.call("GET", "/api/v1/runs/1/results.csv");
  EXPECT_EQ(csv.status, 200U) << csv.body;
  EXPECT_EQ(occurrences(csv.body, ",crash-on-request,"), 4U) << csv.body;
  EXPECT_EQ(occurrences(csv.body, ",callbacks-asio,"), 4U) << csv.body;
  const pid_t daemon_pid = daemon.process().pid();
  EXPECT_TRUE(pollUntil([&] { return workersOf(daemon_pid).empty(); }, 10s))
      << "benchd-worker children left after the run: " << workersOf(daemon_pid).size();

  // Still serving, and the queue takes the next run (stopped once it is under load).
  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const HttpResponse second = daemon.call(
      "POST", "/api/v1/runs",
      R"({"repeat":1,"scenarioFile":"scenarios-ci.csv","approaches":["callbacks-asio"],)"
      R"("warmupSeconds":0,"testSeconds":60})");
  ASSERT_EQ(second.status, 202U) << second.body;
  EXPECT_EQ(second.header("location"), "/api/v1/runs/2");
  EXPECT_TRUE(waitForStep(daemon, 2, "ci-get-time-no-delay", "test", 120s)) << runStatus(daemon, 2);
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 202U);
  EXPECT_EQ(endStatus(parseEvents(followEvents(daemon.port(), daemon.token(), 2, 120s))),
            "stopped");
  daemon.stop();
  EXPECT_EQ(integrityCheck(store), "ok");
}

// --- 2. and 4. the daemon killed or stopped in the middle of a run ----------------------------

/// SIGKILL while the second row's worker is under load: the worker does not outlive the daemon
/// (its parent-death signal stops it), the store keeps what finished and passes its integrity
/// check, and the next daemon shows the run as interrupted.
TEST(BenchdServeRobustness, SigkillMidRunLeavesNoWorkerAndTheRunShowsInterruptedAfterRestart) {
  const benchd::testing::TempDir dir;
  const std::string config = "scenarios_dir = " + twoRowScenarios(dir.path()).string() + "\n";
  const fs::path store = dir.path() / "state" / "benchd.sqlite";
  {
    Daemon daemon(dir.path(), config);
    ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
    const HttpResponse created = daemon.call("POST", "/api/v1/runs", kInterruptedRun);
    ASSERT_EQ(created.status, 202U) << created.body;
    ASSERT_TRUE(waitForStep(daemon, 1, "long-get-time", "test", 120s))
        << runStatus(daemon, 1) << "\n"
        << daemon.process().stderrText();
    const auto watches = watchWorkers(daemon.process().pid());

    ASSERT_TRUE(daemon.process().signal(SIGKILL));
    const auto ended = daemon.process().waitExit(10s);
    ASSERT_TRUE(ended);
    EXPECT_TRUE(ended->signalled() && ended->signal_number == SIGKILL) << ended->describe();
    for (const auto& watch : watches) {
      EXPECT_TRUE(watch->endsWithin(10s))
          << "benchd-worker " << watch->pid() << " outlived the killed daemon by 10 s";
    }
  }

  // The store as the killed daemon left it.
  EXPECT_EQ(integrityCheck(store, Access::kReadWrite), "ok");
  EXPECT_EQ(scalar(store, "SELECT status FROM run WHERE id = 1", Access::kReadWrite), "running");
  EXPECT_EQ(scalar(store,
                   "SELECT count(*) FROM result WHERE run_id = 1 AND scenario = 'short-get-time' "
                   "AND finished = 1 AND failed = 0"),
            "1");
  EXPECT_GE(std::atoi(scalar(store,
                             "SELECT count(*) FROM load_second JOIN result ON result.id = "
                             "load_second.result_id WHERE result.run_id = 1 AND "
                             "result.scenario = 'short-get-time' AND load_second.phase = 'test'")
                          .c_str()),
            2);

  Daemon successor(dir.path(), config);
  ASSERT_NE(successor.port(), 0) << successor.process().stderrText();
  EXPECT_EQ(runStatus(successor, 1), "interrupted");
  const HttpResponse runs = successor.call("GET", "/api/v1/runs");
  EXPECT_EQ(runs.status, 200U);
  EXPECT_NE(runs.body.find(R"("status":"interrupted")"), std::string::npos) << runs.body;
  // What finished before the kill is served: the first row's result and its seconds.
  const auto results = getJson(successor, "/api/v1/runs/1/results");
  ASSERT_TRUE(results && results->HasMember("rows") && (*results)["rows"].IsArray());
  ASSERT_EQ((*results)["rows"].Size(), 1U);
  EXPECT_EQ(stringMember((*results)["rows"][0], "scenario"), "short-get-time");
  EXPECT_EQ(stringMember((*results)["rows"][0], "approach"), "callbacks-asio");
  EXPECT_EQ(
      successor.call("GET", "/api/v1/runs/1/results/short-get-time/callbacks-asio/seconds").status,
      200U);
  EXPECT_EQ(scalar(store, "SELECT status FROM run WHERE id = 1"), "interrupted");
  EXPECT_EQ(integrityCheck(store), "ok");

  successor.stop();
}

/// SIGTERM while the second row's worker is under load: the daemon stops the worker, ends the
/// run's event stream with "stopped", exits 0, and the run stays "stopped" after a restart.
TEST(BenchdServeRobustness, SigtermDuringARunStopsItCleanly) {
  const benchd::testing::TempDir dir;
  const std::string config = "scenarios_dir = " + twoRowScenarios(dir.path()).string() + "\n";
  const fs::path store = dir.path() / "state" / "benchd.sqlite";
  {
    Daemon daemon(dir.path(), config);
    ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
    const HttpResponse created = daemon.call("POST", "/api/v1/runs", kInterruptedRun);
    ASSERT_EQ(created.status, 202U) << created.body;
    ASSERT_TRUE(waitForStep(daemon, 1, "long-get-time", "test", 120s))
        << runStatus(daemon, 1) << "\n"
        << daemon.process().stderrText();
    const auto watches = watchWorkers(daemon.process().pid());
    EventStream events(daemon.port(), daemon.token(), 1);
    ASSERT_TRUE(events.opened());

    const auto signalled = Clock::now();
    ASSERT_TRUE(daemon.process().signal(SIGTERM));
    const auto ended = daemon.process().waitExit(30s);
    // What the daemon sent before it exited waits in this side's socket.
    const std::string& stream = events.readUntilEnd(30s);
    ASSERT_TRUE(ended) << "still running 30 s after SIGTERM";
    std::cout << "the daemon exited " << secondsSince(signalled) << " s after SIGTERM\n";
    EXPECT_TRUE(ended->succeeded()) << ended->describe() << "\n" << daemon.process().stderrText();
    for (const auto& watch : watches) {
      EXPECT_TRUE(watch->endsWithin(0ms))
          << "benchd-worker " << watch->pid() << " still ran when the daemon had exited";
    }
    EXPECT_EQ(endStatus(parseEvents(stream)), "stopped") << printable(stream, 2000);
  }

  EXPECT_EQ(integrityCheck(store, Access::kReadWrite), "ok");
  EXPECT_EQ(scalar(store, "SELECT status FROM run WHERE id = 1", Access::kReadWrite), "stopped");
  EXPECT_EQ(scalar(store,
                   "SELECT count(*) FROM result WHERE run_id = 1 AND scenario = 'short-get-time' "
                   "AND finished = 1 AND failed = 0"),
            "1");

  Daemon successor(dir.path(), config);
  ASSERT_NE(successor.port(), 0) << successor.process().stderrText();
  EXPECT_EQ(runStatus(successor, 1), "stopped");
  successor.stop();
}

// --- 3. malformed requests -----------------------------------------------------------------------

/// The daemon as the hostile corpus aims at it: the API under /api/v1 with its token and Host
/// policy, the HTTP layer's head limit (benchd serve keeps the default), POST /api/v1/runs
/// (api/openapi.yaml's RunRequest; unknown members refused) and the scenario-file library.
HostileTarget daemonTarget(const Daemon& daemon, std::size_t max_body_bytes) {
  HostileTarget target;
  target.port = daemon.port();
  target.host = "127.0.0.1:" + std::to_string(daemon.port());
  target.token = daemon.token();
  target.checks_host = true;
  target.max_head_bytes = http::ServerOptions{}.max_header_bytes;
  target.max_body_bytes = max_body_bytes;
  target.public_path = "/api/v1/health";
  target.answering_paths = {"/api/v1/runs", "/api/v1/version", "/api/v1/approaches",
                            "/api/v1/scenario-files", "/metrics"};
  target.other_paths = {"/api/v1",
                        "/",
                        "/api/v2/health",
                        "/api/v1/runs/0",
                        "/api/v1/runs/-1",
                        "/api/v1/runs/1/stop",
                        "/api/v1/runs/1/events",
                        "/api/v1/runs/1/results",
                        "/api/v1/runs/1/results.csv",
                        "/api/v1/runs/1/winners",
                        "/api/v1/compare",
                        "/api/v1/runs/1/charts/x.png"};
  target.collection = "/api/v1/runs";
  target.query = benchd::testing::QueryResource{
      "/api/v1/runs", {{"status", "queued"}, {"limit", "10"}, {"offset", "0"}}};

  const std::vector<std::string> bad_seconds = {
      "-1",   "1.5",        "\"1\"", "86401", "null", "true", "[]", "1e20", "18446744073709551616",
      "-0.0", "4294967296", "{}",    "\"\""};
  std::vector<std::string> bad_test_seconds = bad_seconds;
  bad_test_seconds.emplace_back("0");
  benchd::testing::JsonShape run_request;
  run_request.refuses_unknown_members = true;
  run_request.members = {
      {"scenarioFile",
       "\"scenarios-ci.csv\"",
       {"1", "null", "true", "[]", "{}", "\"\"", "[\"scenarios-ci.csv\"]",
        "\"../scenarios-ci.csv\"", "\"a/b.csv\"", "\"..\"", "\"/etc/passwd\"", "\"nope.csv\"",
        "\"scenarios-ci.csv/\"", "\"" + std::string(300, 'x') + ".csv\"", "\"%2e%2e%2fpasswd\"",
        R"("scenarios\/ci.csv")", R"("..\/..\/etc\/passwd")"},
       true},
      {"approaches",
       R"(["callbacks-asio"])",
       {R"("callbacks-asio")", "[1]", "[null]", "{}", "1", R"([["callbacks-asio"]])",
        R"(["nope-approach"])", R"(["callbacks-asio","nope"])", R"([""])",
        R"(["../callbacks-asio"])", "[{}]", "null"},
       false},
      {"warmupSeconds", "0", bad_seconds, false},
      {"testSeconds", "1", bad_test_seconds, false},
      {"keepCsv", "false", {"\"true\"", "1", "0", "null", "[]", "\"yes\""}, false},
      // One run a side: the default rounds would make each valid request a long run.
      {"repeat", "1", {"0", "1001", "-1", "1.5", "\"1\"", "null"}, false}};
  target.body = benchd::testing::BodyResource{"POST", "/api/v1/runs", "application/json",
                                              true,   run_request,    {}};

  const std::string header = kScenarioCsvHeader;
  target.documents = benchd::testing::DocumentLibrary{
      "/api/v1/scenario-files",
      "text/csv",
      header + "fuzz,get-time.js,,0,0,10,50,0,2\n",
      {header + "r,nope.js,,0,0,10,50,0,2\n", header + "r,get-time.js,,x,0,10,50,0,2\n",
       header + "r,get-time.js,,0,0,10,50,0\n", header + "\"r,get-time.js,,0,0,10,50,0,2\n",
       header + "r,../../etc/passwd,,0,0,10,50,0,2\n",
       header + "r,get-time.js,,0,0,10,50,0,99999999999999999999999\n", "1,2,3\n4,5,6\n"},
      {".hidden.csv", "a%20b.csv", "x.txt", "evil", "...csv", ".csv",
       std::string(300, 'x') + ".csv", "evil.csv%00.txt", "evil.CSV", "-", "evil.csv."},
      "fuzz-upload.csv",
      "scenarios-ci.csv"};
  return target;
}

/// What the daemon owes a family's requests: the first answer's status (empty: any 4xx or 5xx,
/// or 2xx where the request may succeed) and whether an answer must come at all (a server may
/// close on a request it cannot read).
struct Expectation {
  std::set<unsigned> first_status;
  bool must_answer = false;
};

Expectation daemonOwes(HostileFamily family) {
  switch (family) {
    case HostileFamily::kUnknownId:
      return {{404}, true};
    case HostileFamily::kHeaderOverLimit:
      return {{431}, false};
    case HostileFamily::kUnrepresentableContentLength:
      return {{400, 413}, true};
    case HostileFamily::kBodyOverLimit:
      return {{413}, true};
    case HostileFamily::kChunkedBodyOverLimit:  // it may stop reading mid-way: a reset
      return {{413}, false};
    case HostileFamily::kBadJsonBody:
      return {{400}, true};
    case HostileFamily::kWrongContentType:
    case HostileFamily::kDocumentWrongContentType:
      return {{415}, true};
    case HostileFamily::kBadCredentials:
      return {{401}, true};
    case HostileFamily::kForeignHost:
      return {{400, 421}, true};
    case HostileFamily::kBadDocumentName:
      return {{400, 404, 405}, true};
    case HostileFamily::kBadDocument:
      return {{400}, true};
    case HostileFamily::kProtectedDocumentRemoval:
      return {{409}, true};
    case HostileFamily::kPipelinedValid:
    case HostileFamily::kPipelinedJunk:
    case HostileFamily::kValid:
      return {{200}, true};
    case HostileFamily::kTruncated:
      return {{400, 408}, false};
    case HostileFamily::kRandomBytes:
    case HostileFamily::kBadRequestLine:
    case HostileFamily::kUnknownMethod:
    case HostileFamily::kOddPath:
    case HostileFamily::kHugeTarget:
    case HostileFamily::kBadQueryValue:
    case HostileFamily::kMalformedId:
    case HostileFamily::kManyHeaders:
    case HostileFamily::kBadHeaderSyntax:
    case HostileFamily::kBareLf:
    case HostileFamily::kNulBytes:
    case HostileFamily::kBadContentLength:
    case HostileFamily::kBadChunking:
    case HostileFamily::kDamagedRequest:
      return {};
  }
  return {};
}

bool isTokenCharacter(char character) {
  return std::isalnum(static_cast<unsigned char>(character)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(character) != std::string_view::npos;
}

/// Splits `bytes` into HTTP/1.1 responses, appending their statuses; returns a problem when they
/// are not well-formed. `truncated_ok`: the connection was reset, the last may be cut short.
std::optional<std::string> parseResponses(const std::string& bytes, bool first_is_head,
                                          bool truncated_ok, std::vector<unsigned>& statuses) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const std::size_t head_end = bytes.find("\r\n\r\n", at);
    if (head_end == std::string::npos) {
      return truncated_ok ? std::nullopt
                          : std::optional<std::string>("an incomplete response head: " +
                                                       printable(bytes.substr(at)));
    }
    const std::string head = bytes.substr(at, head_end - at);
    unsigned status = 0;
    if (head.size() < 12 ||
        (head.compare(0, 9, "HTTP/1.1 ") != 0 && head.compare(0, 9, "HTTP/1.0 ") != 0) ||
        std::from_chars(head.data() + 9, head.data() + 12, status).ec != std::errc{} ||
        status < 100 || status > 599 || (head.size() > 12 && head[12] != ' ')) {
      return "not an HTTP/1.x status line: " + printable(head, 60);
    }
    std::optional<std::size_t> content_length;
    bool chunked = false;
    std::string content_type;
    for (std::size_t line_end = head.find("\r\n"); line_end != std::string::npos;) {
      const std::size_t line_start = line_end + 2;
      line_end = head.find("\r\n", line_start);
      const std::string line = head.substr(
          line_start, (line_end == std::string::npos ? head.size() : line_end) - line_start);
      const std::size_t colon = line.find(':');
      if (colon == std::string::npos || colon == 0 ||
          !std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(colon),
                       isTokenCharacter) ||
          std::any_of(line.begin(), line.end(), [](char character) {
            const auto byte = static_cast<unsigned char>(character);
            return (byte < 0x20 && byte != '\t') || byte == 0x7f;
          })) {
        return "a malformed header line: " + printable(line, 80);
      }
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](char character) { return static_cast<char>(std::tolower(character)); });
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      if (name == "content-length") {
        std::size_t length = 0;
        if (std::from_chars(value.data(), value.data() + value.size(), length).ec != std::errc{}) {
          return "a bad Content-Length: " + printable(value);
        }
        content_length = length;
      } else if (name == "transfer-encoding") {
        chunked = value.find("chunked") != std::string::npos;
      } else if (name == "content-type") {
        content_type = value;
      }
    }
    if (status >= 400 && content_type != "application/problem+json") {
      return std::to_string(status) + " with Content-Type '" + content_type +
             "', not application/problem+json";
    }
    const bool no_body =
        (statuses.empty() && first_is_head) || status < 200 || status == 204 || status == 304;
    statuses.push_back(status);
    at = head_end + 4;
    if (no_body) {
      continue;
    }
    if (chunked) {
      while (true) {
        const std::size_t line_end = bytes.find("\r\n", at);
        std::size_t size = 0;
        if (line_end == std::string::npos ||
            std::from_chars(bytes.data() + at, bytes.data() + line_end, size, 16).ec !=
                std::errc{}) {
          return truncated_ok ? std::nullopt : std::optional<std::string>("a broken chunked body");
        }
        at = line_end + 2 + size + 2;
        if (at > bytes.size()) {
          return truncated_ok ? std::nullopt
                              : std::optional<std::string>("a chunked body cut short");
        }
        if (size == 0) {
          break;
        }
      }
    } else if (content_length) {
      if (at + *content_length > bytes.size()) {
        return truncated_ok ? std::nullopt
                            : std::optional<std::string>("a body shorter than its Content-Length");
      }
      at += *content_length;
    } else {
      at = bytes.size();  // delimited by the close
    }
  }
  return std::nullopt;
}

/// What a case got: the first response's status (or "none", "reset", "timeout", "aborted",
/// "refused") and what was wrong with it, if anything.
struct Verdict {
  std::string first;
  std::vector<std::string> problems;
};

Verdict judge(const HostileRequest& request, const HostileExchange& exchange) {
  const Expectation owed = daemonOwes(request.family);
  Verdict verdict;
  if (!exchange.connected) {
    verdict.first = "refused";
    verdict.problems.emplace_back("could not connect");
    return verdict;
  }
  if (request.ending == benchd::testing::ClientEnding::kReset) {
    verdict.first = "aborted";
    return verdict;
  }
  std::vector<unsigned> statuses;
  if (const auto problem =
          parseResponses(exchange.received, request.first_is_head, exchange.reset, statuses)) {
    verdict.problems.push_back("malformed response: " + *problem);
  }
  if (statuses.empty()) {
    verdict.first = exchange.timed_out ? "timeout" : exchange.reset ? "reset" : "none";
  } else {
    verdict.first = std::to_string(statuses[0]);
  }
  if (exchange.timed_out) {
    verdict.problems.emplace_back(
        "neither answered nor closed within 5 s of the client's half-close");
  }
  if (statuses.empty() && owed.must_answer) {
    verdict.problems.emplace_back("no response");
  }
  if (statuses.size() < request.valid_requests_ahead) {
    verdict.problems.push_back(std::to_string(statuses.size()) + " responses to " +
                               std::to_string(request.valid_requests_ahead) +
                               " pipelined valid requests");
  }
  if (!statuses.empty() && !owed.first_status.empty() &&
      owed.first_status.count(statuses[0]) == 0) {
    std::string wanted;
    for (const unsigned status : owed.first_status) {
      wanted += (wanted.empty() ? "" : "/") + std::to_string(status);
    }
    verdict.problems.push_back("status " + std::to_string(statuses[0]) + ", expected " + wanted);
  }
  for (const unsigned status : statuses) {
    if (status < 200 || (status >= 300 && status < 400) || (status < 300 && !request.may_succeed)) {
      verdict.problems.push_back("status " + std::to_string(status) + " to a malformed request");
    }
  }
  return verdict;
}

/// A client that sends `request` one byte every 200 ms for its first `slow_bytes`, then the rest
/// at once (well within the server's header timeout): it must still be answered.
std::string slowClient(std::uint16_t port, const std::string& request, std::size_t slow_bytes) {
  LoopbackSocket socket(port);
  if (!socket.connected()) {
    return "could not connect";
  }
  for (std::size_t at = 0; at < slow_bytes; ++at) {
    if (!socket.send(request.substr(at, 1))) {
      return "the server closed after " + std::to_string(at) + " slow bytes";
    }
    std::this_thread::sleep_for(200ms);  // the client's pace, not a wait for the server
  }
  socket.send(request.substr(slow_bytes));
  socket.shutdownSend();
  std::string received;
  socket.readToEnd(received, Clock::now() + 10s);
  return received.substr(0, received.find("\r\n"));
}

/// A client that never finishes its head (slowloris): one byte every 200 ms. Returns how long
/// the server let it go on before closing the connection; nullopt when it did not within `limit`.
std::optional<double> slowloris(std::uint16_t port, std::chrono::seconds limit) {
  LoopbackSocket socket(port);
  if (!socket.connected()) {
    return std::nullopt;
  }
  const auto started = Clock::now();
  socket.send("GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
  std::optional<double> closed_after;
  while (!closed_after && Clock::now() - started < limit) {
    std::string answer;
    switch (socket.readUntil(
        answer, [](const std::string& text) { return !text.empty(); }, Clock::now() + 200ms)) {
      case LoopbackSocket::ReadEnd::kClosed:
      case LoopbackSocket::ReadEnd::kReset:
        closed_after = secondsSince(started);
        break;
      case LoopbackSocket::ReadEnd::kDone:  // a response (408?) may come first: read on to the
                                            // close
        break;
      case LoopbackSocket::ReadEnd::kTimeout:  // 200 ms of silence: the next byte
        if (!socket.send("a")) {
          closed_after = secondsSince(started);
        }
        break;
    }
  }
  return closed_after;
}

/// Thousands of malformed, hostile, slow or pipelined requests from a fixed seed, on 4 client
/// threads at once: every answer is well-formed HTTP with a fitting status, nothing hangs, no run
/// is created, and afterwards the daemon answers, its store is intact and it stops cleanly.
TEST(BenchdServeRobustness, ThousandsOfMalformedRequestsLeaveTheDaemonAnsweringAndTheStoreIntact) {
  constexpr std::size_t kMaxBodyBytes = 4096;
  constexpr std::size_t kCases = 5000;
  constexpr std::size_t kClientThreads = 4;
  std::uint64_t seed = 20'251'130;
  if (const char* chosen = std::getenv("BENCHD_FUZZ_SEED"); chosen != nullptr) {
    seed = std::strtoull(chosen, nullptr, 10);
  }
  std::cout << "seed " << seed << " (BENCHD_FUZZ_SEED=" << seed << " repeats this run)\n";

  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path(), "max_body_bytes = " + std::to_string(kMaxBodyBytes) + "\n");
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const auto started = Clock::now();

  const std::vector<HostileRequest> cases =
      benchd::testing::hostileCorpus(daemonTarget(daemon, kMaxBodyBytes), seed, kCases);

  // Slow clients alongside.
  std::vector<std::string> slow_answers(2);
  std::optional<double> slowloris_closed_after;
  std::vector<std::thread> slow_threads;
  for (std::string& answer : slow_answers) {
    slow_threads.emplace_back([&daemon, &answer] {
      answer =
          slowClient(daemon.port(), "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 20);
    });
  }
  slow_threads.emplace_back([&] { slowloris_closed_after = slowloris(daemon.port(), 30s); });

  std::vector<Verdict> verdicts(kCases);
  std::atomic<std::size_t> next_case{0};
  std::vector<std::thread> clients;
  for (std::size_t thread = 0; thread < kClientThreads; ++thread) {
    clients.emplace_back([&] {
      for (std::size_t index = next_case++; index < kCases; index = next_case++) {
        verdicts[index] = judge(
            cases[index], benchd::testing::exchangeUntilClosed(daemon.port(), cases[index], 5s));
      }
    });
  }
  for (std::thread& client : clients) {
    client.join();
  }
  const double fuzz_seconds = secondsSince(started);
  for (std::thread& slow : slow_threads) {
    slow.join();
  }

  std::map<std::string, std::size_t> by_status;
  std::map<std::string, std::map<std::string, std::size_t>> by_family;
  std::size_t failures = 0;
  for (std::size_t index = 0; index < kCases; ++index) {
    ++by_status[verdicts[index].first];
    const std::string family(benchd::testing::familyName(cases[index].family));
    ++by_family[family][verdicts[index].first];
    if (!verdicts[index].problems.empty() && ++failures <= 25) {
      std::string problems;
      for (const std::string& problem : verdicts[index].problems) {
        problems += (problems.empty() ? "" : "; ") + problem;
      }
      ADD_FAILURE() << "case " << index << " (" << family << "): " << problems
                    << "\n  sent: " << printable(cases[index].bytes, 300);
    }
  }
  std::cout << kCases + slow_answers.size() + 1 << " requests (" << kCases << " on "
            << kClientThreads << " threads in " << fuzz_seconds << " s, plus "
            << slow_answers.size() << " slow clients and a slowloris); " << failures
            << " with problems\nfirst-response status histogram:\n";
  for (const auto& [status, count] : by_status) {
    std::cout << "  " << status << ": " << count << "\n";
  }
  std::cout << "by family:\n";
  for (const auto& [family, statuses] : by_family) {
    std::cout << "  " << family << ":";
    for (const auto& [status, count] : statuses) {
      std::cout << " " << status << "=" << count;
    }
    std::cout << "\n";
  }
  EXPECT_EQ(failures, 0U);
  for (const std::string& answer : slow_answers) {
    EXPECT_EQ(answer, "HTTP/1.1 200 OK") << "a slow but complete client";
  }
  ASSERT_TRUE(slowloris_closed_after) << "a slowloris client was not cut off within 30 s";
  std::cout << "the slowloris client was cut off after " << *slowloris_closed_after << " s\n";

  // Still alive and answering, nothing created, the store intact.
  EXPECT_FALSE(daemon.process().tryWait()) << daemon.process().stderrText();
  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const HttpResponse runs = daemon.call("GET", "/api/v1/runs");
  EXPECT_EQ(runs.status, 200U);
  const rapidjson::Document runs_json = parseJson(runs.body);
  ASSERT_TRUE(!runs_json.HasParseError() && runs_json.IsObject() && runs_json.HasMember("runs") &&
              runs_json["runs"].IsArray())
      << runs.body;
  EXPECT_EQ(runs_json["runs"].Size(), 0U) << "a malformed request started a run: " << runs.body;
  {
    for (const auto& run : runs_json["runs"].GetArray()) {  // stop what should never have started
      const HttpResponse stopped =
          daemon.call("POST", "/api/v1/runs/" + std::to_string(run["id"].GetInt64()) + "/stop");
      std::cout << "stopped run " << run["id"].GetInt64() << ": " << stopped.status << "\n";
    }
  }
  const HttpResponse files = daemon.call("GET", "/api/v1/scenario-files");
  EXPECT_EQ(files.status, 200U);
  EXPECT_EQ(files.body.find(R"("source":"uploaded")"), std::string::npos) << files.body;
  for (const auto& entry : fs::recursive_directory_iterator(dir.path())) {
    EXPECT_NE(entry.path().extension(), ".csv") << "a file the requests made: " << entry.path();
  }
  const fs::path store = dir.path() / "state" / "benchd.sqlite";
  EXPECT_EQ(integrityCheck(store), "ok");

  daemon.stop();
  EXPECT_EQ(integrityCheck(store), "ok");
  // No handler failed: a malformed request is the client's error (4xx), never a 500.
  daemon.process().drainOutput(5s);  // the daemon has exited: returns once its pipes are read
  EXPECT_EQ(daemon.process().stderrText().find("failed (500)"), std::string::npos)
      << daemon.process().stderrText();
  std::cout << "whole test: " << secondsSince(started) << " s\n";
}

/// A run request nested a million levels deep, within the default body limit (1 MiB): refused as
/// a bad body like any other, not a stack overflow that takes the daemon down.
TEST(BenchdServeRobustness, DeeplyNestedJsonRunRequestIsRefusedNotACrash) {
  const benchd::testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_NE(daemon.port(), 0) << daemon.process().stderrText();
  const std::string body = std::string(1'000'000, '[');
  unsigned status = 0;
  try {
    status = daemon.call("POST", "/api/v1/runs", body).status;
  } catch (const std::exception& error) {
    ADD_FAILURE() << "no answer: " << error.what();
  }
  EXPECT_EQ(status, 400U);
  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const auto crashed = daemon.process().tryWait();
  ASSERT_FALSE(crashed) << "the daemon died: " << crashed->describe() << "\n"
                        << daemon.process().stderrText();
  daemon.stop();
}

}  // namespace
}  // namespace benchd::control
