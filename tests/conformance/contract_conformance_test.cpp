// The contract's checks that cannot be rules of `benchd verify-plugin`
// (benchd::conformance::contractRules(), run against every plugin by contract_rules_test.cpp):
// they need to know the plugin (how many descriptors threads-poco's waits take) or the build
// (whether a sanitizer runtime needs free descriptors), or they test the SDK rather than a
// served plugin. Each is run against every approach plugin in a real benchd-worker.
#include "approach_plugins.hpp"
#include "http_client.hpp"
#include "sanitizer.hpp"
#include "worker_process.hpp"

#include <benchd/plugin.h>
#include <benchd/sdk/plugin_support.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <thread>
#include <vector>

namespace benchd::testing {
namespace {

class ContractConformance : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { raiseOpenFileLimit(); }

  [[nodiscard]] std::string epoch(const std::string& query) const {
    return "/" + GetParam() + "/epoch-millis?" + query;
  }
};

/// The JSON error body of `status` whose message names `fragment`.
void expectErrorBody(const HttpResponse& response, unsigned status, const std::string& fragment) {
  EXPECT_EQ(response.status, status) << response.body;
  EXPECT_EQ(response.header("content-type"), "application/json");
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  ASSERT_TRUE(body.IsObject()) << response.body;
  ASSERT_TRUE(body.HasMember("message") && body["message"].IsString()) << response.body;
  EXPECT_NE(std::string(body["message"].GetString()).find(fragment), std::string::npos)
      << body["message"].GetString();
}

/// The lowest descriptor number the process `pid` has free: where its next socket would go.
int lowestFreeDescriptor(pid_t pid) {
  std::set<int> open;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    open.insert(std::stoi(entry.path().filename().string()));
  }
  int lowest = 0;
  while (open.contains(lowest))
    ++lowest;
  return lowest;
}

/// A nested call that fails (here: the worker may open no further descriptor, so it cannot
/// connect to itself) answers 502 with the JSON error body; the connection and the server stay
/// usable. The soft limit is the lowest free descriptor number rather than 0 so that poll()
/// on the descriptors already open still works (it refuses more descriptors than the limit).
/// Poco's socket waits each open a descriptor of their own (an epoll queue per wait), so under
/// threads-poco one descriptor more is left: enough to read the request, and taken by the
/// nested call's socket, whose connect then cannot wait.
TEST_P(ContractConformance, FailedNestedCallIsAnswered502) {
  if (kAddressSanitizer)
    GTEST_SKIP() << kNoDescriptorsUnderSanitizers;
  auto worker = WorkerProcess::serve(GetParam());
  HttpConnection client(worker->port());
  ASSERT_EQ(client.request("GET", "/health").status, 200U);  // accepted before the limit
  const pid_t pid = worker->pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const int spare = GetParam() == "threads-poco" ? 1 : 0;
  const auto tight = static_cast<rlim_t>(lowestFreeDescriptor(pid) + spare);
  const rlimit lowered{tight, original.rlim_max};  // the soft limit only
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);
  HttpResponse failed;
  try {
    failed = client.request("GET", epoch("delayCallDepth=1&delayInMillis=0"));
  } catch (const std::runtime_error& e) {
    ADD_FAILURE() << "no answer: " << e.what() << "\n" << worker->stderrText();
  }
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0);
  expectErrorBody(failed, 502, "nested call");
  HttpConnection again(worker->port());
  const HttpResponse after = again.request("GET", epoch("delayCallDepth=1&delayInMillis=0"));
  EXPECT_EQ(after.status, 200U) << after.body;
}

/// CPU time (user + system) the process has used so far.
std::chrono::milliseconds cpuTimeOf(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start after the last ')'.
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  std::uint64_t user = 0;
  std::uint64_t system = 0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14) {
      user = std::stoull(field);
    } else if (index == 15) {
      system = std::stoull(field);
    }
  }
  const long ticks_per_second = ::sysconf(_SC_CLK_TCK);
  return std::chrono::milliseconds((user + system) * 1000 /
                                   static_cast<std::uint64_t>(ticks_per_second));
}

std::size_t openDescriptorsOf(pid_t pid) {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++count;
  }
  return count;
}

/// Out of descriptors, the server neither spins on the connections waiting in its backlog nor
/// loses them: once descriptors are free again they are served.
TEST_P(ContractConformance, OutOfDescriptorsItWaitsWithoutSpinningAndThenServes) {
  if (kAddressSanitizer)
    GTEST_SKIP() << kNoDescriptorsUnderSanitizers;
  auto worker = WorkerProcess::serve(GetParam());
  const pid_t pid = worker->pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const rlim_t tight = openDescriptorsOf(pid) + 4;
  // The soft limit only: raising a hard limit again would need privileges.
  const rlimit lowered{tight, original.rlim_max};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);

  // More connections than descriptors: the kernel completes them into the backlog.
  constexpr int kClients = 20;
  std::vector<std::unique_ptr<HttpConnection>> clients;
  clients.reserve(kClients);
  for (int index = 0; index < kClients; ++index) {
    clients.push_back(std::make_unique<HttpConnection>(worker->port(), std::chrono::seconds(5)));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const auto cpu_before = cpuTimeOf(pid);
  const auto wall_before = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const auto cpu_used = cpuTimeOf(pid) - cpu_before;
  const auto wall = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - wall_before);
  // A spinning accept loop burns a whole core (~2,000 ms here); waiting costs next to nothing.
  EXPECT_LT(cpu_used.count(), wall.count() / 4)
      << "the worker used " << cpu_used.count() << " ms of CPU in " << wall.count()
      << " ms while out of descriptors";

  // Descriptors free again: the waiting connections and new ones are served.
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &original, nullptr), 0);
  // None was lost: each waited for a descriptor, in the backlog or accepted (threads-poco once
  // closed a connection it had accepted with the last descriptor, when its first wait for a
  // request needed one more for Poco's epoll-based Socket::poll).
  for (auto& client : clients) {
    const HttpResponse waited = client->request("GET", "/health");
    EXPECT_EQ(waited.status, 200U);
  }
  clients.clear();
  EXPECT_EQ(httpRequest(worker->port(), "GET", "/health").status, 200U);
  const auto stats = worker->waitStats([](const WorkerStats& now) {
    const auto it = now.counters.find("accept_errors");
    return it == now.counters.end() || it->second > 0;
  });
  ASSERT_TRUE(stats) << "the Asio plugins count the failed accepts in accept_errors";
}

/// benchd_error belongs to the caller, which sets struct_size; the callee writes a message only
/// within it, NUL included, and nothing when it does not reach the message. Checked on the SDK's
/// setError() and guardedCall(), which the host table and the C++ plugins use on either side.
TEST(ContractErrorBuffer, TheCalleeWritesOnlyWithinTheStructSizeItIsHanded) {
  benchd_error error{};
  std::memset(error.message, 'x', sizeof(error.message));
  error.struct_size = offsetof(benchd_error, message) + 8;  // a caller with a shorter message
  sdk::setError(&error, "longer than eight bytes");
  EXPECT_EQ(std::string(error.message), "longer ");
  EXPECT_EQ(error.message[8], 'x') << "written beyond struct_size";

  std::memset(error.message, 'x', sizeof(error.message));
  error.struct_size = offsetof(benchd_error, message);  // no room for a message at all
  sdk::setError(&error, "anything");
  EXPECT_EQ(error.message[0], 'x');

  error.struct_size = sizeof(error);
  const std::string long_message(2 * sizeof(error.message), 'm');
  const benchd_status status = sdk::guardedCall(
      &error, [&] { throw sdk::PluginError(BENCHD_ERR_INVALID_ARGUMENT, long_message); });
  EXPECT_EQ(status, BENCHD_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(error.message), long_message.substr(0, sizeof(error.message) - 1))
      << "cut to the buffer, NUL-terminated";
}

INSTANTIATE_TEST_SUITE_P(AllApproaches, ContractConformance, ::testing::ValuesIn(approachPlugins()),
                         [](const auto& param_info) { return testNameOf(param_info.param); });

}  // namespace
}  // namespace benchd::testing
