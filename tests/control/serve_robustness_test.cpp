// `benchd serve` under abuse, as a real process: an approach whose worker crashes in the middle
// of a run, the daemon killed (SIGKILL) or stopped (SIGTERM) in the middle of a run, thousands of
// malformed, hostile and slow requests. After each: the daemon answers (or, once killed, its
// successor does), no benchd-worker is left behind and the SQLite store passes its integrity
// check.
#include "build_paths.hpp"
#include "daemon_process.hpp"
#include "temp_dir.hpp"

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
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sqlite3.h>
#include <sstream>
#include <sys/syscall.h>
#include <thread>
#include <vector>

namespace benchd::control {
namespace {

using namespace benchd::control::testing;
using Clock = std::chrono::steady_clock;

// --- small things ------------------------------------------------------------------------

/// Polls `condition` every 50 ms until it holds (true) or `timeout` passes (false).
template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    if (condition()) {
      return true;
    }
    if (Clock::now() >= deadline) {
      return false;
    }
    std::this_thread::sleep_for(50ms);
  }
}

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// `text` with everything but printable ASCII escaped, cut to `limit` characters (for messages).
std::string printable(const std::string& text, std::size_t limit = 160) {
  std::string out;
  for (const char character : text.substr(0, limit)) {
    const auto byte = static_cast<unsigned char>(character);
    if (byte >= 0x20 && byte < 0x7f && byte != '\\') {
      out += character;
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[byte >> 4U];
      out += kHex[byte & 0xfU];
    }
  }
  if (text.size() > limit) {
    out += "...(" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

// --- the API, parsed -----------------------------------------------------------------------

rapidjson::Document parseJson(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  return document;
}

std::string stringMember(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) {
    return {};
  }
  const auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString()
                                                                : std::string();
}

/// GET `target` as parsed JSON; a document with a parse error when the call fails.
rapidjson::Document getJson(const Daemon& daemon, const std::string& target) {
  try {
    const HttpResponse response = daemon.call("GET", target);
    if (response.status == 200) {
      return parseJson(response.body);
    }
  } catch (const std::exception&) {
  }
  return parseJson("");
}

/// The "status" of GET /api/v1/runs/{run}; empty when the call fails.
std::string runStatus(const Daemon& daemon, int run) {
  const rapidjson::Document run_json = getJson(daemon, "/api/v1/runs/" + std::to_string(run));
  return run_json.HasParseError() ? std::string() : stringMember(run_json, "status");
}

/// Polls GET /api/v1/runs/{run} until its progress is in `step` of the scenario row `scenario`.
/// False when the run ends first or `timeout` passes.
bool waitForStep(const Daemon& daemon, int run, const std::string& scenario,
                 const std::string& step, std::chrono::seconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    const rapidjson::Document run_json = getJson(daemon, "/api/v1/runs/" + std::to_string(run));
    if (!run_json.HasParseError() && run_json.IsObject()) {
      const std::string status = stringMember(run_json, "status");
      if (status != "queued" && status != "running") {
        return false;
      }
      const auto progress = run_json.FindMember("progress");
      if (progress != run_json.MemberEnd() &&
          stringMember(progress->value, "scenario") == scenario &&
          stringMember(progress->value, "step") == step) {
        return true;
      }
    }
    std::this_thread::sleep_for(100ms);
  }
  return false;
}

struct StreamEvent {
  std::string id;
  std::string type;
  std::string data;
};

/// The body of a chunked HTTP response (its head skipped), up to its last complete chunk.
std::string dechunk(const std::string& raw) {
  std::size_t at = raw.find("\r\n\r\n");
  std::string body;
  if (at == std::string::npos) {
    return body;
  }
  at += 4;
  while (true) {
    const std::size_t line_end = raw.find("\r\n", at);
    std::size_t size = 0;
    if (line_end == std::string::npos ||
        std::from_chars(raw.data() + at, raw.data() + line_end, size, 16).ec != std::errc{} ||
        size == 0 || line_end + 2 + size > raw.size()) {
      return body;
    }
    body.append(raw, line_end + 2, size);
    at = line_end + 2 + size + 2;
  }
}

/// The events of a raw event stream, as followEvents() returns it.
std::vector<StreamEvent> parseEvents(const std::string& raw) {
  std::vector<StreamEvent> events;
  std::istringstream body(dechunk(raw));
  StreamEvent event;
  std::string line;
  while (std::getline(body, line)) {
    if (line.empty()) {
      if (!event.type.empty() || !event.data.empty()) {
        events.push_back(event);
      }
      event = {};
    } else if (line.rfind("id: ", 0) == 0) {
      event.id = line.substr(4);
    } else if (line.rfind("event: ", 0) == 0) {
      event.type = line.substr(7);
    } else if (line.rfind("data: ", 0) == 0) {
      event.data += (event.data.empty() ? "" : "\n") + line.substr(6);
    }
  }
  return events;
}

/// The "status" of the stream's end event; empty without one.
std::string endStatus(const std::vector<StreamEvent>& events) {
  for (const StreamEvent& event : events) {
    if (event.type == "end") {
      return stringMember(parseJson(event.data), "status");
    }
  }
  return {};
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
    return eventually(  // no pidfd_open in this kernel: /proc
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

// --- sockets -------------------------------------------------------------------------------------

int connectTo(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    if (fd >= 0) {
      ::close(fd);
    }
    return -1;
  }
  const timeval send_timeout{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof(send_timeout));
  return fd;
}

/// Waits up to `timeout` for `fd` to become readable; false when it did not.
bool readable(int fd, std::chrono::milliseconds timeout) {
  pollfd poll_fd{fd, POLLIN, 0};
  int ready = 0;
  do {
    ready = ::poll(&poll_fd, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  return ready == 1;
}

// --- a run that is surely caught in the middle -------------------------------------------------

constexpr const char* kScenarioHeader =
    "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
    "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n";

/// A scenarios folder (the built-in workloads) with "interrupted.csv": a short first row that
/// finishes and is stored before anything happens to the daemon, and a long second one.
fs::path twoRowScenarios(const fs::path& dir) {
  fs::path folder = dir / "scenarios";
  const fs::path source = fs::path(benchd::testing::sourceDir()) / "scenarios";
  fs::create_directories(folder);
  fs::create_directory_symlink(source / "workloads", folder / "workloads");
  fs::create_symlink(source / "movies.json", folder / "movies.json");
  std::ofstream(folder / "interrupted.csv") << kScenarioHeader
                                            << "short-get-time,get-time.js,,0,0,10,50,0,2\n"
                                               "long-get-time,get-time.js,,0,0,10,50,0,300\n";
  return folder;
}

constexpr const char* kInterruptedRun =
    R"({"scenarioFile":"interrupted.csv","approaches":["callbacks-asio"]})";

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

/// GET /api/v1/runs/{run}/events, opened at construction (which returns once the response head
/// has arrived), then read on a thread of its own until the end event, the close, or `timeout`.
class EventFollower {
 public:
  EventFollower(std::uint16_t port, const std::string& token, int run, std::chrono::seconds timeout)
      : fd_(connectTo(port)) {
    if (fd_ < 0) {
      return;
    }
    const std::string request = "GET /api/v1/runs/" + std::to_string(run) +
                                "/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                token + "\r\n\r\n";
    ::send(fd_, request.data(), request.size(), MSG_NOSIGNAL);
    const auto deadline = Clock::now() + timeout;
    readUntil([this] { return stream_.find("\r\n\r\n") != std::string::npos; }, deadline);
    opened_ = stream_.find("\r\n\r\n") != std::string::npos;
    thread_ = std::thread([this, deadline] {
      readUntil(
          [this] {
            const std::size_t end = stream_.find("event: end");
            return end != std::string::npos && stream_.find("\n\n", end) != std::string::npos;
          },
          deadline);
    });
  }
  ~EventFollower() {
    join();
    if (fd_ >= 0) {
      ::close(fd_);
    }
  }
  EventFollower(const EventFollower&) = delete;
  EventFollower& operator=(const EventFollower&) = delete;

  /// True when the stream's response head arrived.
  [[nodiscard]] bool opened() const { return opened_; }

  /// Waits for the reading to end; the raw stream.
  const std::string& finish() {
    join();
    return stream_;
  }

 private:
  template <typename Done>
  void readUntil(Done done, Clock::time_point deadline) {
    char buffer[4096];
    while (!done()) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0 || !readable(fd_, left)) {
        return;
      }
      const ssize_t got = ::recv(fd_, buffer, sizeof(buffer), 0);
      if (got <= 0) {
        return;
      }
      stream_.append(buffer, static_cast<std::size_t>(got));
    }
  }
  void join() {
    if (thread_.joinable()) {
      thread_.join();
    }
  }

  int fd_;
  bool opened_ = false;
  std::string stream_;
  std::thread thread_;
};

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
      R"({"scenarioFile":"scenarios-ci.csv","approaches":["crash-on-request","callbacks-asio"],)"
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
  EXPECT_EQ(count(csv.body, ",crash-on-request,"), 4U) << csv.body;
  EXPECT_EQ(count(csv.body, ",callbacks-asio,"), 4U) << csv.body;
  const pid_t daemon_pid = daemon.process().pid();
  EXPECT_TRUE(eventually([&] { return workersOf(daemon_pid).empty(); }, 10s))
      << "benchd-worker children left after the run: " << workersOf(daemon_pid).size();

  // Still serving, and the queue takes the next run (stopped once it is under load).
  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  const HttpResponse second =
      daemon.call("POST", "/api/v1/runs",
                  R"({"scenarioFile":"scenarios-ci.csv","approaches":["callbacks-asio"],)"
                  R"("warmupSeconds":0,"testSeconds":60})");
  ASSERT_EQ(second.status, 202U) << second.body;
  EXPECT_EQ(second.header("location"), "/api/v1/runs/2");
  EXPECT_TRUE(waitForStep(daemon, 2, "ci-get-time-no-delay", "test", 120s)) << runStatus(daemon, 2);
  EXPECT_EQ(daemon.call("POST", "/api/v1/runs/2/stop").status, 202U);
  EXPECT_EQ(endStatus(parseEvents(followEvents(daemon.port(), daemon.token(), 2, 120s))),
            "stopped");

  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe() << "\n" << daemon.process().stderrText();
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
  const rapidjson::Document results = getJson(successor, "/api/v1/runs/1/results");
  ASSERT_TRUE(!results.HasParseError() && results.HasMember("rows") && results["rows"].IsArray());
  ASSERT_EQ(results["rows"].Size(), 1U);
  EXPECT_EQ(stringMember(results["rows"][0], "scenario"), "short-get-time");
  EXPECT_EQ(stringMember(results["rows"][0], "approach"), "callbacks-asio");
  EXPECT_EQ(
      successor.call("GET", "/api/v1/runs/1/results/short-get-time/callbacks-asio/seconds").status,
      200U);
  EXPECT_EQ(scalar(store, "SELECT status FROM run WHERE id = 1"), "interrupted");
  EXPECT_EQ(integrityCheck(store), "ok");

  successor.process().signal(SIGTERM);
  const auto ended = successor.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
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
    EventFollower follower(daemon.port(), daemon.token(), 1, 60s);
    ASSERT_TRUE(follower.opened());

    const auto signalled = Clock::now();
    ASSERT_TRUE(daemon.process().signal(SIGTERM));
    const auto ended = daemon.process().waitExit(30s);
    const std::string& stream = follower.finish();
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
  successor.process().signal(SIGTERM);
  const auto ended = successor.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
}

// --- 3. malformed requests -----------------------------------------------------------------------

/// One request (or several, or none) as bytes on a fresh connection, and what may come back.
struct FuzzCase {
  std::string category;
  std::string bytes;
  /// The first response's status must be one of these; empty: any 4xx or 5xx (or a 2xx when
  /// allow_2xx).
  std::set<unsigned> expected;
  bool allow_2xx = false;         ///< a 2xx is fine (a valid GET, or one the server may normalise)
  bool must_answer = false;       ///< a response must come; otherwise a close without one is fine
  std::size_t min_responses = 0;  ///< pipelined valid requests: at least this many answers
  bool head = false;              ///< the first request is HEAD: its response has no body
  bool abort = false;             ///< the client resets the connection right after sending
};

FuzzCase makeCase(std::string category, std::set<unsigned> expected = {}, bool must_answer = false,
                  bool allow_2xx = false) {
  FuzzCase fuzz_case;
  fuzz_case.category = std::move(category);
  fuzz_case.expected = std::move(expected);
  fuzz_case.must_answer = must_answer;
  fuzz_case.allow_2xx = allow_2xx;
  return fuzz_case;
}

/// What came back on a connection: bytes until the server closed it (or reset it, or the wait
/// ran out).
struct Exchange {
  bool connected = false;
  bool reset = false;
  bool timed_out = false;
  std::string received;
};

/// Reads until the server closes or resets the connection or `deadline` passes.
void readToEnd(int fd, Exchange& exchange, Clock::time_point deadline) {
  char buffer[16384];
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !readable(fd, left)) {
      exchange.timed_out = true;
      return;
    }
    const ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
    if (got == 0) {
      return;
    }
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      exchange.reset = true;
      return;
    }
    exchange.received.append(buffer, static_cast<std::size_t>(got));
  }
}

/// Sends the case's bytes, half-closes (the server sees the end of the request stream, so it
/// answers what it can and closes instead of waiting for more) and reads what comes back.
Exchange exchange(std::uint16_t port, const FuzzCase& fuzz_case) {
  Exchange result;
  const int fd = connectTo(port);
  if (fd < 0) {
    return result;
  }
  result.connected = true;
  std::size_t sent = 0;
  while (sent < fuzz_case.bytes.size()) {
    const ssize_t wrote =
        ::send(fd, fuzz_case.bytes.data() + sent, fuzz_case.bytes.size() - sent, MSG_NOSIGNAL);
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      result.reset = true;  // the server closed early (e.g. a refused oversized header)
      break;
    }
    sent += static_cast<std::size_t>(wrote);
  }
  if (fuzz_case.abort) {
    const linger reset_on_close{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset_on_close, sizeof(reset_on_close));
    ::close(fd);
    return result;
  }
  ::shutdown(fd, SHUT_WR);
  readToEnd(fd, result, Clock::now() + 5s);
  ::close(fd);
  return result;
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

/// Random choices from a fixed seed: the same seed makes the same cases (on one standard library).
class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  std::size_t below(std::size_t bound) {
    return std::uniform_int_distribution<std::size_t>(0, bound - 1)(engine_);
  }
  std::size_t between(std::size_t low, std::size_t high) { return low + below(high - low + 1); }
  bool chance(unsigned percent) { return below(100) < percent; }
  std::string pick(const std::vector<std::string>& items) { return items[below(items.size())]; }
  std::string bytes(std::size_t count) {
    std::string out(count, '\0');
    for (char& byte : out) {
      byte = static_cast<char>(below(256));
    }
    return out;
  }
  /// Printable ASCII without spaces.
  std::string word(std::size_t count) {
    std::string out(count, '\0');
    for (char& byte : out) {
      byte = static_cast<char>(between(0x21, 0x7e));
    }
    return out;
  }

 private:
  std::mt19937_64 engine_;
};

/// Makes the malformed requests: every one is refused or harmless, none is a valid run request.
class CaseMaker {
 public:
  CaseMaker(std::uint64_t seed, std::uint16_t port, const std::string& token,
            std::size_t max_body_bytes)
      : random_(seed),
        host_("Host: 127.0.0.1:" + std::to_string(port)),
        port_(port),
        auth_("Authorization: Bearer " + token),
        token_(token),
        max_body_bytes_(max_body_bytes) {}

  FuzzCase next() {
    switch (random_.below(17)) {
      case 0:
        return randomBytes();
      case 1:
        return garbageRequestLine();
      case 2:
        return randomMethod();
      case 3:
      case 4:
        return oddPath();
      case 5:
      case 6:
        return badRunBody();
      case 7:
        return tooLarge();
      case 8:
        return wrongContentType();
      case 9:
        return wrongToken();
      case 10:
        return foreignHost();
      case 11:
        return pipelined();
      case 12:
        return truncated();
      case 13:
        return oddHeaders();
      case 14:
        return scenarioFiles();
      default:
        return valid();
    }
  }

 private:
  static std::string request(const std::string& method, const std::string& target,
                             const std::vector<std::string>& header_lines,
                             const std::string& body = {}) {
    std::string out = method + " " + target + " HTTP/1.1\r\n";
    for (const std::string& line : header_lines) {
      out += line + "\r\n";
    }
    return out + "\r\n" + body;
  }

  std::string jsonPost(const std::string& target, const std::string& body) {
    return request("POST", target,
                   {host_, auth_, "Content-Type: application/json",
                    "Content-Length: " + std::to_string(body.size())},
                   body);
  }

  const std::vector<std::string>& paths() {
    static const std::vector<std::string> kPaths = {"/api/v1/health",
                                                    "/api/v1/version",
                                                    "/api/v1/approaches",
                                                    "/api/v1/runs",
                                                    "/api/v1/runs/1",
                                                    "/api/v1/runs/1/stop",
                                                    "/api/v1/runs/1/events",
                                                    "/api/v1",
                                                    "/",
                                                    "/api/v2/health",
                                                    "/api/v1/runs/0",
                                                    "/api/v1/runs/-1",
                                                    "/api/v1/scenario-files",
                                                    "/api/v1/runs/1/results",
                                                    "/api/v1/runs/1/results.csv",
                                                    "/api/v1/runs/1/winners",
                                                    "/api/v1/compare",
                                                    "/metrics",
                                                    "/api/v1/runs/1/charts/x.png"};
    return kPaths;
  }

  FuzzCase randomBytes() {
    FuzzCase fuzz_case = makeCase("random bytes");
    if (random_.chance(50)) {
      fuzz_case.bytes = random_.bytes(random_.between(1, 2000));
    } else {  // text-like: words, spaces and line breaks
      const std::size_t words = random_.between(1, 60);
      for (std::size_t index = 0; index < words; ++index) {
        fuzz_case.bytes += random_.word(random_.between(1, 20)) +
                           random_.pick({" ", "\r\n", "\n", ": ", "\r\n\r\n", "\t"});
      }
    }
    return fuzz_case;
  }

  FuzzCase garbageRequestLine() {
    FuzzCase fuzz_case = makeCase("garbage request line");
    std::string line;
    switch (random_.below(4)) {
      case 0:
        line = random_.word(random_.between(1, 100));
        break;
      case 1:
        line = random_.word(random_.between(1, 10)) + " " + random_.word(random_.between(1, 40)) +
               " " + random_.word(random_.between(1, 10));
        break;
      case 2:
        line = "GET " + random_.word(random_.between(1, 40)) + " HTTP/" + random_.word(3);
        break;
      default:
        line = "GET " + random_.pick(paths()) + " " +
               random_.pick({"HTTP/1.1 extra", "HTTP/1.1x", "HTTX/1.1", "HTTP/1.", "HTTP/11",
                             "http/1.1", "HTTP/9.9", "HTTP/1.1\r", "HTTP/1.1 ", "HTTP/-1.1",
                             "HTTP/1.1\x01", "", "HTTP/1.1 HTTP/1.1"});
        break;
    }
    fuzz_case.bytes = line + "\r\n" + host_ + "\r\n" + auth_ + "\r\n\r\n";
    return fuzz_case;
  }

  FuzzCase randomMethod() {
    FuzzCase fuzz_case = makeCase("random method");
    static const std::vector<std::string> kMethods = {
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "DELETE",
        "PATCH",
        "OPTIONS",
        "TRACE",
        "CONNECT",
        "PROPFIND",
        "BREW",
        "get",
        "Get",
        "G\tET",
        "",
        "M-SEARCH",
        "GET\x7f",
        "P0ST",
        "GETGETGETGETGETGETGETGETGETGETGETGETGETGETGETGET"};
    std::string method;
    switch (random_.below(3)) {
      case 0:
        method = random_.pick(kMethods);
        break;
      case 1: {
        method.resize(random_.between(1, 30));
        for (char& letter : method) {
          letter = static_cast<char>('A' + random_.below(26));
        }
        break;
      }
      default:
        method = random_.word(random_.between(1, 20));
        break;
    }
    const std::string path = random_.pick(paths());
    fuzz_case.bytes = request(method, path, {host_, auth_});
    fuzz_case.head = method == "HEAD";
    fuzz_case.allow_2xx = method == "GET" || method == "HEAD" || method == "OPTIONS";
    return fuzz_case;
  }

  FuzzCase oddPath() {
    FuzzCase fuzz_case = makeCase("odd path");
    fuzz_case.allow_2xx = true;  // a path the server normalises to a real one may be answered
    static const std::vector<std::string> kSegments = {
        "api",  "v1",  "runs",   "health",   "version",  "approaches", "events",
        "stop", "..",  "%2e%2e", "%2E%2e",   ".",        "%2f",        "%2F",
        "",     "%00", "%",      "%zz",      "%c0%ae",   "etc",        "passwd",
        "~",    "*",   "%20",    "1",        "-1",       "0",          "99999999999999999999999",
        "1e3",  "0x1", "%31",    "\xc3\xa9", "\xff\xfe", "..%2f..%2f", "%252e%252e"};
    std::string target;
    switch (random_.below(5)) {
      case 0: {
        const std::size_t count = random_.between(1, 8);
        for (std::size_t index = 0; index < count; ++index) {
          target += random_.pick({"/", "//", "/./", "\\"}) + random_.pick(kSegments);
        }
        break;
      }
      case 1:
        target = random_.pick({"/api/v1/runs/%2e%2e/health", "/api/v1/../v1/health",
                               "/api/v1/%2e%2e/%2e%2e/etc/passwd",
                               "/api/v1/runs/..%2f..%2f..%2fetc%2fpasswd", "/..", "/%2e%2e/",
                               "/api/v1/runs/1/../../../../etc/passwd", "/api//v1//health",
                               "/api/v1/health/", "/api/v1/runs/%2e", "/api%2fv1%2fhealth",
                               "/./api/v1/./health", "/api/v1/runs/1%2f..%2f2"});
        break;
      case 2: {
        const std::size_t length = random_.between(1000, 40'000);
        switch (random_.below(3)) {
          case 0:
            target = "/api/v1/runs/" + std::string(length, 'a');
            break;
          case 1:
            target = "/api/v1/runs/" + std::string(length, '9');
            break;
          default:
            for (std::size_t index = 0; index < length / 2; ++index) {
              target += "/a";
            }
            break;
        }
        break;
      }
      case 3: {  // control characters and raw bytes inside the target
        target = random_.pick(paths());
        const std::size_t count = random_.between(1, 4);
        for (std::size_t index = 0; index < count; ++index) {
          const std::string bad =
              random_.pick({std::string(1, '\0'), "\x01", "\x1f", "\x7f", " ", "\t", "\r", "\n",
                            "\x80", "\xff", "\"", "<", ">", "{", "}", "|", "^", "`"});
          target.insert(random_.below(target.size() + 1), bad);
        }
        break;
      }
      default:
        target = random_.pick(
            {"http://127.0.0.1:" + std::to_string(port_) + "/api/v1/health",
             "http://evil.example/api/v1/health", "*", "", "api/v1/health", "//api/v1/health",
             "/api/v1/health?" + random_.word(random_.between(1, 200)),
             "/api/v1/runs?limit=%zz&&&==", "/api/v1/health#fragment", "/api/v1/health;param",
             "/api/v1/runs/%31", "/API/V1/HEALTH", "/api/v1/runs/1?", "?", "/?/", "/%",
             "/api/v1/runs/+1", "/api/v1/runs/ 1", "/api/v1/runs/1.0"});
        break;
    }
    fuzz_case.bytes = request(random_.chance(90) ? "GET" : "DELETE", target, {host_, auth_});
    return fuzz_case;
  }

  /// A JSON value of the wrong type (or out of range) for `member`.
  std::string wrongValue(const std::string& member) {
    static const std::vector<std::string> kAnyWrong = {"null",      "true", "{}", "[[]]",
                                                       "{\"a\":1}", "1.5",  "-1"};
    if (member == "scenarioFile") {
      return random_.pick({"1", "null", "true", "[]", "{}", "\"\"", "[\"scenarios-ci.csv\"]",
                           "\"../scenarios-ci.csv\"", "\"a/b.csv\"", "\"..\"", "\"/etc/passwd\"",
                           "\"nope.csv\"", "\"scenarios-ci.csv/\"",
                           "\"" + std::string(300, 'x') + ".csv\"", "\"%2e%2e%2fpasswd\"",
                           R"("scenarios\/ci.csv")", R"("..\/..\/etc\/passwd")"});
    }
    if (member == "approaches") {
      return random_.pick({R"("callbacks-asio")", "[1]", "[null]", "{}", "1",
                           "[[\"callbacks-asio\"]]", "[\"nope-approach\"]",
                           "[\"callbacks-asio\",\"nope\"]", "[\"\"]", "[\"../callbacks-asio\"]",
                           "[{}]", "null"});
    }
    if (member == "warmupSeconds" || member == "testSeconds") {
      std::vector<std::string> values = {"-1",    "1.5",        "\"1\"",
                                         "86401", "null",       "true",
                                         "[]",    "1e20",       "18446744073709551616",
                                         "-0.0",  "4294967296", "{}",
                                         "\"\""};
      if (member == "testSeconds") {
        values.emplace_back("0");
      }
      return random_.pick(values);
    }
    if (member == "keepCsv") {
      return random_.pick({"\"true\"", "1", "0", "null", "[]", "\"yes\""});
    }
    return random_.pick(kAnyWrong);
  }

  /// A POST /api/v1/runs body with at least one defect; the rest may be valid.
  std::string invalidRunBody() {
    const std::array<std::string, 4> valid_members = {R"("scenarioFile":"scenarios-ci.csv")",
                                                      R"("approaches":["callbacks-asio"])",
                                                      R"("warmupSeconds":0)", R"("testSeconds":1)"};
    const std::string valid = std::string("{") + valid_members[0] + "," + valid_members[1] + "," +
                              valid_members[2] + "," + valid_members[3] + "}";
    switch (random_.below(8)) {
      case 0:  // cut short: a proper prefix of an object is never a whole one
        return valid.substr(0, random_.below(valid.size()));
      case 1:  // followed by more
        return valid + random_.pick({"x", "{}", ",", "]", "\"", "1", "null"});
      case 2:  // not JSON at all, or not an object
        return random_.pick({"", " ", "null", "[]", "1", "\"scenarios-ci.csv\"", "{oops", "{'a':1}",
                             "{\"scenarioFile\":}", "\xef\xbb\xbf{}", "{\"a\" 1}", "nul", "{,}",
                             "[" + valid + "]", random_.bytes(random_.between(1, 300))});
      case 3: {  // nested deeper than anything sane, within the body limit
        const std::string open = random_.chance(50) ? "[" : "{\"a\":";
        const std::size_t depth = random_.between(100, (max_body_bytes_ - 40) / (open.size() + 1));
        std::string body = R"({"scenarioFile":)";
        for (std::size_t index = 0; index < depth; ++index) {
          body += open;
        }
        if (random_.chance(50)) {  // closed properly
          body += "1";
          body += std::string(depth, open == "[" ? ']' : '}');
          body += "}";
        }
        return body;
      }
      case 4: {  // an unknown member among valid ones
        std::string name =
            random_.pick({"scenariofile", "ScenarioFile", "scenario_file", "testseconds",
                          "approach", "", "__proto__", "constructor", "scenarioFile ", "\\u0000"});
        return "{" + valid_members[random_.below(4)] + ",\"" + name + "\":1}";
      }
      case 5:  // scenarioFile missing
        return random_.pick({"{}", R"({"approaches":["callbacks-asio"]})",
                             R"({"testSeconds":1,"warmupSeconds":0})"});
      default: {  // one to three wrong members, the others valid, in any order
        // No valid member shares a name with a wrong one: with duplicate names the daemon
        // takes the last, which could be the valid one.
        static const std::vector<std::string> kMembers = {
            "scenarioFile", "approaches", "warmupSeconds", "testSeconds", "keepCsv"};
        std::vector<std::string> members;
        std::set<std::string> wrong_names;
        const std::size_t wrong = random_.between(1, 3);
        for (std::size_t index = 0; index < wrong; ++index) {
          const std::string member = random_.pick(kMembers);
          wrong_names.insert(member);
          members.push_back("\"" + member + "\":" + wrongValue(member));
        }
        for (const std::string& valid_member : valid_members) {
          const std::string name = valid_member.substr(1, valid_member.find('"', 1) - 1);
          if (wrong_names.count(name) == 0) {
            members.push_back(valid_member);
          }
        }
        std::shuffle(members.begin(), members.end(), std::mt19937_64(random_.below(1U << 30U)));
        std::string body = "{";
        for (const std::string& member : members) {
          body += (body.size() > 1 ? "," : "") + member;
        }
        return body + "}";
      }
    }
  }

  FuzzCase badRunBody() {
    FuzzCase fuzz_case = makeCase("bad run body", {400}, true);
    const std::string body = invalidRunBody().substr(0, max_body_bytes_);
    if (random_.chance(20)) {  // the same, chunked
      std::ostringstream chunked;
      for (std::size_t at = 0; at < body.size(); at += 100) {
        const std::string part = body.substr(at, 100);
        chunked << std::hex << part.size() << "\r\n" << part << "\r\n";
      }
      chunked << "0\r\n\r\n";
      fuzz_case.bytes =
          request("POST", "/api/v1/runs",
                  {host_, auth_, "Content-Type: application/json", "Transfer-Encoding: chunked"},
                  chunked.str());
    } else {
      fuzz_case.bytes = jsonPost("/api/v1/runs", body);
    }
    return fuzz_case;
  }

  FuzzCase tooLarge() {
    FuzzCase fuzz_case = makeCase("body too large", {413}, true);
    switch (random_.below(4)) {
      case 0:
      case 1: {  // a Content-Length over the limit: refused from the head, the body never sent
        const std::size_t length = random_.chance(50)
                                       ? random_.between(max_body_bytes_ + 1, 2 * max_body_bytes_)
                                       : random_.between(max_body_bytes_ + 1, 1'000'000'000);
        fuzz_case.bytes = request("POST", "/api/v1/runs",
                                  {host_, auth_, "Content-Type: application/json",
                                   "Content-Length: " + std::to_string(length)});
        break;
      }
      case 2: {  // chunked past the limit: the server may stop reading mid-way (a reset)
        fuzz_case.must_answer = false;
        std::string chunks;
        const std::size_t total = random_.between(max_body_bytes_ + 1, 3 * max_body_bytes_);
        for (std::size_t sent = 0; sent < total; sent += 1000) {
          chunks += "3e8\r\n" + std::string(1000, '[') + "\r\n";
        }
        fuzz_case.bytes =
            request("POST", "/api/v1/runs",
                    {host_, auth_, "Content-Type: application/json", "Transfer-Encoding: chunked"},
                    chunks + "0\r\n\r\n");
        break;
      }
      default:  // a Content-Length no integer holds
        fuzz_case.expected = {400, 413};
        fuzz_case.bytes = request("POST", "/api/v1/runs",
                                  {host_, auth_, "Content-Type: application/json",
                                   "Content-Length: 99999999999999999999999999"});
        break;
    }
    return fuzz_case;
  }

  FuzzCase wrongContentType() {
    FuzzCase fuzz_case = makeCase("wrong content type", {415}, true);
    // A valid run request but for its type: a 202 would start a run.
    const std::string body =
        R"({"scenarioFile":"scenarios-ci.csv","approaches":["callbacks-asio"],"testSeconds":1})";
    std::vector<std::string> headers = {host_, auth_,
                                        "Content-Length: " + std::to_string(body.size())};
    const std::string type =
        random_.pick({"text/plain", "application/xml", "application/x-www-form-urlencoded",
                      "multipart/form-data; boundary=x", "application/jsonp", "json", "",
                      "application/json-patch+json", "text/json", "application/javascript", "*/*",
                      "application/ json", "-"});
    if (type != "-") {
      headers.push_back("Content-Type: " + type);
    }
    fuzz_case.bytes = request("POST", "/api/v1/runs", headers, body);
    return fuzz_case;
  }

  FuzzCase wrongToken() {
    FuzzCase fuzz_case = makeCase("missing or wrong token", {401}, true);
    std::string upper = token_;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](char character) { return static_cast<char>(std::toupper(character)); });
    const std::string authorization = random_.pick(
        {"-", "Authorization: Bearer", "Authorization: Bearer ", "Authorization: Bearer wrong",
         "Authorization: Bearer " + token_ + "0", "Authorization: Bearer " + token_.substr(1),
         "Authorization: Basic dXNlcjpwYXNz", "Authorization: Token " + token_,
         "Authorization: " + token_, "Authorization: Bearer " + upper,
         "Authorization: Bearer " + std::string(token_.size(), 'a'),
         "Authorization: ", "Authorization: Bearer " + token_.substr(0, 32),
         "Authorization: Bearer " + std::string(8000, 'f'), "X-Authorization: Bearer " + token_});
    std::vector<std::string> headers = {host_};
    if (authorization != "-") {
      headers.push_back(authorization);
    }
    switch (random_.below(5)) {
      case 0: {
        const std::string body = R"({"scenarioFile":"scenarios-ci.csv","testSeconds":1})";
        headers.emplace_back("Content-Type: application/json");
        headers.push_back("Content-Length: " + std::to_string(body.size()));
        fuzz_case.bytes = request("POST", "/api/v1/runs", headers, body);
        break;
      }
      case 1:
        fuzz_case.bytes = request("POST", "/api/v1/approaches/rescan", headers);
        break;
      default:
        fuzz_case.bytes =
            request("GET",
                    random_.pick({"/api/v1/version", "/api/v1/runs", "/api/v1/approaches",
                                  "/api/v1/runs/1", "/api/v1/runs/1/events"}),
                    headers);
        break;
    }
    return fuzz_case;
  }

  FuzzCase foreignHost() {
    FuzzCase fuzz_case = makeCase("foreign or broken host", {400, 421}, true);
    const std::string port = std::to_string(port_);
    const std::string wrong_port = std::to_string(port_ == 65535 ? 1 : port_ + 1);
    const std::vector<std::vector<std::string>> hosts = {{"Host: evil.example"},
                                                         {"Host: evil.example:" + port},
                                                         {"Host: 127.0.0.2"},
                                                         {"Host: 127.0.0.1:" + wrong_port},
                                                         {"Host: localhost:" + wrong_port},
                                                         {"Host: localhost.evil.example"},
                                                         {"Host: [::2]"},
                                                         {"Host: 0.0.0.0:" + port},
                                                         {"Host: 10.0.0.1"},
                                                         {"Host: 2130706433"},
                                                         {"Host: 127.1"},
                                                         {"Host: evil.example", "Host: localhost"},
                                                         {"Host: localhost", "Host: localhost"},
                                                         {},
                                                         {"Host: a b"},
                                                         {"Host: [::1"},
                                                         {"Host: user@localhost"},
                                                         {"Host: 127.0.0.1:" + port + "x"},
                                                         {"Host: localhost:-1"},
                                                         {"Host: localhost:99999999"},
                                                         {"Host: " + std::string(2000, 'h')},
                                                         {"Host: localhost/api"},
                                                         {"Host: \x01localhost"}};
    std::vector<std::string> headers = hosts[random_.below(hosts.size())];
    headers.push_back(auth_);
    fuzz_case.bytes = request(
        "GET", random_.pick({"/api/v1/health", "/api/v1/version", "/api/v1/runs"}), headers);
    return fuzz_case;
  }

  FuzzCase pipelined() {
    const std::string health = request("GET", "/api/v1/health", {host_});
    if (random_.chance(40)) {  // only valid requests: every one answered, in order
      FuzzCase fuzz_case = makeCase("pipelined valid", {200}, true, true);
      const std::size_t count = random_.between(2, 10);
      fuzz_case.min_responses = count;
      for (std::size_t index = 0; index < count; ++index) {
        fuzz_case.bytes += index % 2 == 0 ? health : request("GET", "/api/v1/runs", {host_, auth_});
      }
      return fuzz_case;
    }
    FuzzCase fuzz_case = makeCase("pipelined junk", {200}, true, true);
    fuzz_case.min_responses = 1;
    fuzz_case.bytes = health;
    switch (random_.below(3)) {
      case 0:
        fuzz_case.bytes += random_.bytes(random_.between(1, 500));
        break;
      case 1:
        fuzz_case.bytes += garbageRequestLine().bytes;
        break;
      default:  // a request of some method (never HEAD: its answer has no body), then junk
        fuzz_case.bytes += request(random_.pick({"GET", "DELETE", "PUT", "BREW", "get"}),
                                   random_.pick(paths()), {host_}) +
                           random_.word(random_.between(1, 50)) + "\r\n";
        break;
    }
    fuzz_case.bytes += health;
    return fuzz_case;
  }

  FuzzCase truncated() {
    FuzzCase fuzz_case = makeCase("half-closed mid-request");
    std::string whole;
    switch (random_.below(3)) {
      case 0:
        whole = request("GET", "/api/v1/health", {host_});
        break;
      case 1:
        whole = request("GET", "/api/v1/runs", {host_, auth_});
        break;
      default:
        whole = jsonPost("/api/v1/runs", invalidRunBody().substr(0, max_body_bytes_));
        break;
    }
    const std::size_t roll = random_.below(100);
    if (roll < 10) {
      fuzz_case.category = "reset mid-request";
      fuzz_case.abort = true;
    } else if (roll < 15) {
      fuzz_case.category = "half-closed at once";
      whole.clear();
    }
    fuzz_case.bytes = whole.substr(0, whole.empty() ? 0 : random_.below(whole.size()));
    fuzz_case.expected = {400, 408};
    return fuzz_case;
  }

  FuzzCase oddHeaders() {
    FuzzCase fuzz_case = makeCase("odd headers");
    fuzz_case.allow_2xx = true;  // lenient but harmless readings of a GET are fine
    std::vector<std::string> headers = {host_, auth_};
    std::string start = "GET /api/v1/health HTTP/1.1";
    switch (random_.below(14)) {
      case 0:  // a header over the server's head limit (16 KiB)
        fuzz_case.expected = {431};
        headers.push_back("X-Big: " + std::string(random_.between(17'000, 60'000), 'x'));
        break;
      case 1:  // many small ones
      {
        const std::size_t count = random_.between(50, 400);
        for (std::size_t index = 0; index < count; ++index) {
          headers.push_back("X-" + std::to_string(index) + ": " + random_.word(10));
        }
        break;
      }
      case 2:
        headers.emplace_back("NoColonHere");
        break;
      case 3:
        headers.emplace_back("X-Fold: a");
        headers.emplace_back(" folded");
        break;
      case 4:
        headers.emplace_back("X Bad: a");
        break;
      case 5:
        headers.emplace_back("Content-Length: 5");
        headers.emplace_back("Transfer-Encoding: chunked");
        break;
      case 6:
        headers.push_back(
            random_.pick({"Content-Length: -1", "Content-Length: abc", "Content-Length: 1, 2",
                          "Content-Length: 0x10", "Content-Length: +5", "Content-Length:"}));
        break;
      case 7:
        headers.emplace_back("Content-Length: 3");
        headers.emplace_back("Content-Length: 4");
        break;
      case 8:
        start = random_.pick({"GET /api/v1/health HTTP/1.0", "GET /api/v1/health HTTP/2.0",
                              "GET /api/v1/health HTTP/0.9", "GET /api/v1/health",
                              "GET /api/v1/health HTTP/1.1 ", " GET /api/v1/health HTTP/1.1",
                              "GET  /api/v1/health HTTP/1.1"});
        break;
      case 9: {  // bare LF line endings
        fuzz_case.bytes = "GET /api/v1/health HTTP/1.1\n" + host_ + "\n\n";
        return fuzz_case;
      }
      case 10:
        headers.push_back(std::string("X-Nul: a") + '\0' + "b");
        break;
      case 11:
        headers.push_back(
            random_.pick({"Transfer-Encoding: gzip", "Transfer-Encoding: chunked, gzip",
                          "Transfer-Encoding: identity", "Transfer-Encoding: chunked"}));
        break;
      case 12:
        headers.push_back(random_.pick({"Connection: upgrade", "Upgrade: h2c", "Expect: 999-nope",
                                        "Connection: close, close, keep-alive, x"}));
        break;
      default:
        headers.push_back(random_.word(random_.between(1, 30)) + ": " +
                          random_.bytes(random_.between(0, 100)));
        break;
    }
    std::string bytes = start + "\r\n";
    for (const std::string& line : headers) {
      bytes += line + "\r\n";
    }
    fuzz_case.bytes = bytes + "\r\n";
    return fuzz_case;
  }

  /// The scenario-file library: uploads under bad names, uploads that are not scenario files,
  /// the wrong type, traversal on reads, built-ins that cannot be removed. None may be stored.
  FuzzCase scenarioFiles() {
    static const std::string kValidCsv =
        std::string(kScenarioHeader) + "fuzz,get-time.js,,0,0,10,50,0,2\n";
    static const std::vector<std::string> kBadNames = {"..%2f..%2fevil.csv",
                                                       "%2e%2e",
                                                       "..",
                                                       ".hidden.csv",
                                                       "a%20b.csv",
                                                       "x.txt",
                                                       "evil",
                                                       "%00.csv",
                                                       "a%2fb.csv",
                                                       "...csv",
                                                       ".csv",
                                                       std::string(300, 'x') + ".csv",
                                                       "evil.csv%00.txt",
                                                       "%2e%2e%2fstate%2ftoken",
                                                       "evil.CSV",
                                                       "-",
                                                       "evil.csv.",
                                                       "%c0%ae.csv"};
    const std::string name = random_.pick(kBadNames);
    FuzzCase fuzz_case = makeCase("scenario files", {400, 404, 405}, true);
    switch (random_.below(6)) {
      case 0:  // a bad name, a good file
        fuzz_case.bytes = request("PUT", "/api/v1/scenario-files/" + name,
                                  {host_, auth_, "Content-Type: text/csv",
                                   "Content-Length: " + std::to_string(kValidCsv.size())},
                                  kValidCsv);
        break;
      case 1: {  // a good name, not a scenario file
        const std::string body = random_.pick(
            {std::string(kScenarioHeader) + "r,nope.js,,0,0,10,50,0,2\n",
             std::string(kScenarioHeader) + "r,get-time.js,,x,0,10,50,0,2\n",
             std::string(kScenarioHeader) + "r,get-time.js,,0,0,10,50,0\n",
             std::string(kScenarioHeader) + "\"r,get-time.js,,0,0,10,50,0,2\n",
             std::string(kScenarioHeader) + "r,../../etc/passwd,,0,0,10,50,0,2\n",
             std::string(kScenarioHeader) + "r,get-time.js,,0,0,10,50,0,99999999999999999999999\n",
             "1,2,3\n4,5,6\n"});
        fuzz_case.expected = {400};
        fuzz_case.bytes = request("PUT", "/api/v1/scenario-files/fuzz-upload.csv",
                                  {host_, auth_, "Content-Type: text/csv",
                                   "Content-Length: " + std::to_string(body.size())},
                                  body);
        break;
      }
      case 2:  // a good name and file, the wrong type
        fuzz_case.expected = {415};
        fuzz_case.bytes = request(
            "PUT", "/api/v1/scenario-files/fuzz-upload.csv",
            {host_, auth_,
             "Content-Type: " + random_.pick({"application/json", "text/plain", "text/csv2"}),
             "Content-Length: " + std::to_string(kValidCsv.size())},
            kValidCsv);
        break;
      case 3:  // reading outside the library
        fuzz_case.bytes =
            request("GET", "/api/v1/scenario-files/" + name, {host_, auth_, "Accept: text/csv"});
        break;
      case 4:  // removing a built-in
        fuzz_case.expected = {409};
        fuzz_case.bytes =
            request("DELETE", "/api/v1/scenario-files/scenarios-ci.csv", {host_, auth_});
        break;
      default:  // removing outside the library
        fuzz_case.bytes = request("DELETE", "/api/v1/scenario-files/" + name, {host_, auth_});
        break;
    }
    return fuzz_case;
  }

  FuzzCase valid() {
    FuzzCase fuzz_case = makeCase("valid", {200}, true, true);
    switch (random_.below(4)) {
      case 0:
        fuzz_case.bytes = request("GET", "/api/v1/health", {host_});
        break;
      case 1:
        fuzz_case.bytes = request("GET", "/api/v1/runs", {host_, auth_});
        break;
      case 2:
        fuzz_case.bytes = request("GET", "/api/v1/version", {host_, auth_});
        break;
      default:
        fuzz_case = makeCase("valid", {404}, true);
        fuzz_case.bytes = request("GET", "/api/v1/runs/424242", {host_, auth_});
        break;
    }
    return fuzz_case;
  }

  Random random_;
  std::string host_;
  std::uint16_t port_;
  std::string auth_;
  std::string token_;
  std::size_t max_body_bytes_;
};

/// What a case got: the first response's status (or "none", "reset", "timeout", "aborted",
/// "refused") and what was wrong with it, if anything.
struct Verdict {
  std::string first;
  std::vector<std::string> problems;
};

Verdict judge(const FuzzCase& fuzz_case, const Exchange& exchange) {
  Verdict verdict;
  if (!exchange.connected) {
    verdict.first = "refused";
    verdict.problems.emplace_back("could not connect");
    return verdict;
  }
  if (fuzz_case.abort) {
    verdict.first = "aborted";
    return verdict;
  }
  std::vector<unsigned> statuses;
  if (const auto problem =
          parseResponses(exchange.received, fuzz_case.head, exchange.reset, statuses)) {
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
  if (statuses.empty() && fuzz_case.must_answer) {
    verdict.problems.emplace_back("no response");
  }
  if (statuses.size() < fuzz_case.min_responses) {
    verdict.problems.push_back(std::to_string(statuses.size()) + " responses to " +
                               std::to_string(fuzz_case.min_responses) + " pipelined requests");
  }
  if (!statuses.empty() && !fuzz_case.expected.empty() &&
      fuzz_case.expected.count(statuses[0]) == 0) {
    std::string wanted;
    for (const unsigned status : fuzz_case.expected) {
      wanted += (wanted.empty() ? "" : "/") + std::to_string(status);
    }
    verdict.problems.push_back("status " + std::to_string(statuses[0]) + ", expected " + wanted);
  }
  for (const unsigned status : statuses) {
    if (status < 200 || (status >= 300 && status < 400) || (status < 300 && !fuzz_case.allow_2xx)) {
      verdict.problems.push_back("status " + std::to_string(status) + " to a malformed request");
    }
  }
  return verdict;
}

/// A client that sends `request` one byte every 200 ms for its first `slow_bytes`, then the rest
/// at once (well within the server's header timeout): it must still be answered.
std::string slowClient(std::uint16_t port, const std::string& request, std::size_t slow_bytes) {
  const int fd = connectTo(port);
  if (fd < 0) {
    return "could not connect";
  }
  for (std::size_t at = 0; at < slow_bytes; ++at) {
    if (::send(fd, request.data() + at, 1, MSG_NOSIGNAL) != 1) {
      ::close(fd);
      return "the server closed after " + std::to_string(at) + " slow bytes";
    }
    std::this_thread::sleep_for(200ms);
  }
  const std::string rest = request.substr(slow_bytes);
  ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
  ::shutdown(fd, SHUT_WR);
  Exchange result;
  result.connected = true;
  readToEnd(fd, result, Clock::now() + 10s);
  ::close(fd);
  return result.received.substr(0, result.received.find("\r\n"));
}

/// A client that never finishes its head (slowloris): one byte every 200 ms. Returns how long
/// the server let it go on before closing the connection; nullopt when it did not within `limit`.
std::optional<double> slowloris(std::uint16_t port, std::chrono::seconds limit) {
  const int fd = connectTo(port);
  if (fd < 0) {
    return std::nullopt;
  }
  const auto started = Clock::now();
  const std::string head = "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  ::send(fd, head.data(), head.size(), MSG_NOSIGNAL);
  std::optional<double> closed_after;
  char buffer[4096];
  while (!closed_after && Clock::now() - started < limit) {
    if (readable(fd, 200ms)) {
      const ssize_t got = ::recv(fd, buffer, sizeof(buffer), 0);
      if (got <= 0) {
        closed_after = secondsSince(started);
      }
      continue;  // a response (408?) may come first: read on to the close
    }
    if (::send(fd, "a", 1, MSG_NOSIGNAL) != 1) {
      closed_after = secondsSince(started);
    }
  }
  ::close(fd);
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

  CaseMaker maker(seed, daemon.port(), daemon.token(), kMaxBodyBytes);
  std::vector<FuzzCase> cases;
  cases.reserve(kCases);
  for (std::size_t index = 0; index < kCases; ++index) {
    cases.push_back(maker.next());
  }

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
        verdicts[index] = judge(cases[index], exchange(daemon.port(), cases[index]));
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
  std::map<std::string, std::map<std::string, std::size_t>> by_category;
  std::size_t failures = 0;
  for (std::size_t index = 0; index < kCases; ++index) {
    ++by_status[verdicts[index].first];
    ++by_category[cases[index].category][verdicts[index].first];
    if (!verdicts[index].problems.empty() && ++failures <= 25) {
      std::string problems;
      for (const std::string& problem : verdicts[index].problems) {
        problems += (problems.empty() ? "" : "; ") + problem;
      }
      ADD_FAILURE() << "case " << index << " (" << cases[index].category << "): " << problems
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
  std::cout << "by category:\n";
  for (const auto& [category, statuses] : by_category) {
    std::cout << "  " << category << ":";
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

  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe() << "\n" << daemon.process().stderrText();
  EXPECT_EQ(integrityCheck(store), "ok");
  // No handler failed: a malformed request is the client's error (4xx), never a 500.
  daemon.process().drainOutput(500ms);
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
  const auto crashed = daemon.process().waitExit(1s);
  ASSERT_FALSE(crashed) << "the daemon died: " << crashed->describe() << "\n"
                        << daemon.process().stderrText();
  EXPECT_EQ(daemon.call("GET", "/api/v1/health", {}, false).status, 200U);
  daemon.process().signal(SIGTERM);
  const auto ended = daemon.process().waitExit(30s);
  ASSERT_TRUE(ended);
  EXPECT_TRUE(ended->succeeded()) << ended->describe();
}

}  // namespace
}  // namespace benchd::control
