// `benchd-worker --inspect` as a process, and the crash-on-request fixture served by a real
// worker (supervised with ChildProcess the way the run engine will: stream its stdout lines,
// stop it, describe how it died).
#include "http_client.hpp"
#include "runner_test_support.hpp"

#include <benchd/common/child_process.hpp>
#include <benchd/plugin.h>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace benchd::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

common::CompletedProcess worker(const std::vector<std::string>& arguments) {
  return common::runToCompletion(testing::workerExecutable(), arguments, 30s);
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

TEST(WorkerInspect, PrintsOnePluginLineAndExitsZero) {
  const fs::path plugin = testing::approachPluginFile("callbacks-asio");
  const common::CompletedProcess result = worker({"--inspect", plugin.string()});
  ASSERT_TRUE(result.status.succeeded()) << result.status.describe() << "\n" << result.stderr_text;
  EXPECT_EQ(result.stderr_text, "");
  ASSERT_EQ(result.stdout_text.find('\n'), result.stdout_text.size() - 1) << "one line";
  rapidjson::Document line;
  line.Parse(result.stdout_text.c_str());
  ASSERT_TRUE(line.IsObject()) << result.stdout_text;
  EXPECT_STREQ(line["event"].GetString(), "plugin");
  EXPECT_EQ(line["path"].GetString(), fs::canonical(plugin).string());
  EXPECT_STREQ(line["name"].GetString(), "callbacks-asio");
  EXPECT_STRNE(line["version"].GetString(), "");
  EXPECT_STRNE(line["description"].GetString(), "");
  EXPECT_STREQ(line["concurrencyModel"].GetString(), "callbacks");
  EXPECT_STREQ(line["ioStack"].GetString(), "Boost.Asio 1.81 + Beast; HTTP/2 on libnghttp2");
  EXPECT_EQ(std::string(line["abi"].GetString()),
            std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR));
  ASSERT_TRUE(line["profiles"].IsArray());
  std::vector<std::string> profiles;
  for (const auto& profile : line["profiles"].GetArray())
    profiles.emplace_back(profile.GetString());
  EXPECT_EQ(profiles, (std::vector<std::string>{"no-keep-alive", "postgres", "client-beast",
                                                "client-curl", "tls", "h2", "h2c"}));
  ASSERT_TRUE(line["contractExceptions"].IsArray());
  EXPECT_EQ(line["contractExceptions"].Size(), 0U) << "callbacks-asio holds the whole contract";
  EXPECT_EQ(line.MemberCount(), 10U);
}

TEST(WorkerInspect, ARefusedPluginExitsThreeWithOneLine) {
  const fs::path plugin = testing::brokenPluginFolder() / "wrong_abi_major.so";
  const common::CompletedProcess result = worker({"--inspect", plugin.string()});
  EXPECT_EQ(result.status.describe(), "exit code 3");
  EXPECT_EQ(result.stdout_text, "");
  EXPECT_TRUE(result.stderr_text.starts_with("benchd-worker: error: plugin " + plugin.string() +
                                             ": built for plugin ABI "))
      << result.stderr_text;
  EXPECT_EQ(result.stderr_text.find('\n'), result.stderr_text.size() - 1) << "one line";
}

TEST(WorkerInspect, AMissingFileIsRefused) {
  const common::CompletedProcess result = worker({"--inspect", "/nonexistent/plugin.so"});
  EXPECT_EQ(result.status.describe(), "exit code 3");
  EXPECT_EQ(result.stderr_text,
            "benchd-worker: error: plugin /nonexistent/plugin.so: No such file or directory\n");
}

TEST(WorkerInspect, ACrashWhileLoadingKillsOnlyTheWorker) {
  const common::CompletedProcess result =
      worker({"--inspect", testing::testPluginFile("crash-on-load").string()});
  EXPECT_TRUE(result.status.signalled());
  EXPECT_EQ(result.status.signal_number, SIGSEGV);
}

TEST(WorkerInspect, TakesNoOtherOption) {
  const common::CompletedProcess result =
      worker({"--inspect", testing::approachPluginFile("callbacks-asio").string(), "--port", "0"});
  EXPECT_EQ(result.status.describe(), "exit code 2");
  EXPECT_EQ(firstLine(result.stderr_text),
            "benchd-worker: error: --inspect takes no other option, got '--port' (inspect first, "
            "then serve with --plugin)");
}

TEST(WorkerInspect, IsInTheHelp) {
  const common::CompletedProcess result = worker({"--help"});
  EXPECT_TRUE(result.status.succeeded());
  EXPECT_NE(result.stdout_text.find("benchd-worker --inspect PATH"), std::string::npos);
}

/// A worker serving crash-on-request on an ephemeral port.
class CrashOnRequestWorker {
 public:
  CrashOnRequestWorker()
      : child_(testing::workerExecutable(),
               {"--plugin", testing::testPluginFile("crash-on-request").string(), "--port", "0",
                "--stats-interval-ms", "50"}) {}

  /// Reads stdout lines until one has this "event"; returns it parsed.
  std::optional<rapidjson::Document> waitEvent(const std::string& event) {
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!child_.stdoutClosed() && std::chrono::steady_clock::now() < deadline) {
      for (const std::string& line : child_.readStdoutLines(1s)) {
        rapidjson::Document document;
        document.Parse(line.c_str());
        if (document.IsObject() && document.HasMember("event") &&
            event == document["event"].GetString()) {
          return document;
        }
      }
    }
    return std::nullopt;
  }

  common::ChildProcess& child() { return child_; }

 private:
  common::ChildProcess child_;
};

TEST(CrashOnRequestPlugin, AnswersHealthReportsStatsAndStopsCleanly) {
  CrashOnRequestWorker worker;
  const auto ready = worker.waitEvent("ready");
  ASSERT_TRUE(ready) << worker.child().stderrText();
  EXPECT_STREQ((*ready)["plugin"]["name"].GetString(), "crash-on-request");
  const auto port = static_cast<std::uint16_t>((*ready)["port"].GetUint());
  ASSERT_NE(port, 0);

  for (int i = 0; i < 3; ++i) {
    const auto response = benchd::testing::httpRequest(port, "GET", "/health");
    EXPECT_EQ(response.status, 200U);
    EXPECT_EQ(response.body, R"({"status":"UP"})");
  }
  std::optional<rapidjson::Document> stats;
  do {
    stats = worker.waitEvent("stats");
  } while (stats && (*stats)["counters"]["requests_served"].GetInt64() < 3);
  ASSERT_TRUE(stats);
  EXPECT_EQ((*stats)["counters"]["requests_in_flight"].GetInt64(), 0);

  const common::ExitStatus status = worker.child().stop(20s);
  EXPECT_EQ(status.describe(), "exit code 0") << worker.child().stderrText();
  const auto stopped = worker.waitEvent("stopped");
  ASSERT_TRUE(stopped);
  EXPECT_TRUE((*stopped)["drained"].GetBool());
}

TEST(CrashOnRequestPlugin, AbortsTheWorkerOnAnyOtherRequest) {
  CrashOnRequestWorker worker;
  const auto ready = worker.waitEvent("ready");
  ASSERT_TRUE(ready) << worker.child().stderrText();
  const auto port = static_cast<std::uint16_t>((*ready)["port"].GetUint());
  EXPECT_THROW(benchd::testing::httpRequest(
                   port, "GET", "/crash-on-request/epoch-millis?delayCallDepth=0&delayInMillis=0"),
               std::runtime_error);
  const auto status = worker.child().waitExit(20s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->describe().substr(0, 18), "signal 6 (SIGABRT)");
  worker.child().drainOutput(5s);
  const auto tail = worker.child().stderrTail(3);
  ASSERT_FALSE(tail.empty());
  EXPECT_NE(tail.back().find("crash-on-request: aborting on 'GET /crash-on-request/epoch-millis"),
            std::string::npos)
      << worker.child().stderrText();
}

}  // namespace
}  // namespace benchd::runner
