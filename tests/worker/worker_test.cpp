// benchd-worker as a process: every way to start it wrongly gets one clear message and a
// distinct exit code; a good start prints ready, reports stats and stops gracefully.
#include "build_paths.hpp"
#include "http_client.hpp"
#include "temp_dir.hpp"
#include "worker_process.hpp"

#include <benchd/conformance/loopback_socket.hpp>
#include <benchd/plugin.h>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

std::string brokenPlugin(const std::string& name) {
  return brokenPluginDir() + "/" + name + ".so";
}

/// A plugin built from tests/test_plugins/fixture_plugin.c.
std::string fixturePlugin(const std::string& name) {
  return fixturePluginDir() + "/" + name + ".so";
}

using benchd::testing::TempDir;

struct Outcome {
  int exit_code = -1;
  std::string error_output;
};

/// Runs a worker that is expected to give up on its own.
Outcome runToExit(const std::vector<std::string>& args) {
  WorkerProcess worker(args);
  const auto code = worker.waitExit(std::chrono::seconds(20));
  if (!code)
    return {-1, "worker did not exit: " + worker.stderrText()};
  return {*code, worker.stderrText()};
}

void expectRefusal(const Outcome& outcome, int exit_code, const std::string& fragment) {
  EXPECT_EQ(outcome.exit_code, exit_code) << outcome.error_output;
  EXPECT_NE(outcome.error_output.find(fragment), std::string::npos)
      << "stderr should mention '" << fragment << "':\n"
      << outcome.error_output;
  EXPECT_EQ(outcome.error_output.find("terminate called"), std::string::npos);
}

const std::string kGoodPlugin = "callbacks-asio";

TEST(WorkerArguments, MissingPluginIsAUsageError) {
  expectRefusal(runToExit({"--port", "0"}), 2, "--plugin is required");
}

TEST(WorkerArguments, MissingPortIsAUsageError) {
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin)}), 2, "--port is required");
}

TEST(WorkerArguments, UnknownFlagIsAUsageError) {
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--frobnicate", "1"}), 2,
      "unknown option '--frobnicate'");
}

TEST(WorkerArguments, OutOfRangePortIsAUsageError) {
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "70000"}), 2,
                "--port: expected an integer from 0 to 65535, got '70000'");
}

TEST(WorkerArguments, FlagWithoutValueIsAUsageError) {
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port"}), 2,
                "--port: missing value");
}

TEST(WorkerArguments, UnknownProfileIsAUsageError) {
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--profile", "mysql"}), 2,
      "--profile: unknown profile 'mysql' (known: no-cache, no-keep-alive, read-write, "
      "postgres, tls, h2, h2c, client-beast, client-curl, client-poco, client-httplib)");
}

TEST(WorkerArguments, PostgresProfileNeedsTheDatabaseAndTheDatabaseNeedsTheProfile) {
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--profile", "postgres"}), 2,
      "--profile postgres needs --postgres CONNINFO");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--postgres",
                           "host=/nonexistent dbname=movies"}),
                2, "--postgres is only for a row with --profile postgres");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--profile",
                           "postgres", "--postgres", "host=/x", "--db-pool", "0"}),
                2, "--db-pool: expected an integer from 1 to 10000, got '0'");
}

TEST(WorkerArguments, UnknownPluginOptionIsRefusedByThePlugin) {
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--option", "max_threads=5"}),
      2, "unknown option 'max_threads'");
}

TEST(WorkerArguments, HelpPrintsUsage) {
  WorkerProcess worker({"--help"});
  EXPECT_EQ(worker.waitExit(), 0);
  const auto lines = worker.stdoutLines();
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find("usage: benchd-worker"), std::string::npos);
}

TEST(WorkerPluginRefusal, MissingFile) {
  expectRefusal(runToExit({"--plugin", "/nonexistent/plugin.so", "--port", "0"}), 3,
                "plugin /nonexistent/plugin.so: No such file or directory");
}

TEST(WorkerPluginRefusal, NotASharedLibrary) {
  TempDir dir;
  const fs::path fake = dir.path() / "fake.so";
  std::ofstream(fake) << "just text\n";
  fs::permissions(fake, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                            fs::perms::others_read);
  expectRefusal(runToExit({"--plugin", fake.string(), "--port", "0"}), 3, "cannot be loaded");
}

TEST(WorkerPluginRefusal, WrongAbiMajor) {
  const Outcome outcome = runToExit({"--plugin", brokenPlugin("wrong_abi_major"), "--port", "0"});
  expectRefusal(outcome, 3,
                "built for plugin ABI " + std::to_string(BENCHD_ABI_MAJOR + 1) +
                    ".0, but this host "
                    "speaks ABI " +
                    std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR));
  EXPECT_NE(outcome.error_output.find("major versions must match"), std::string::npos);
}

TEST(WorkerPluginRefusal, NewerAbiMinor) {
  expectRefusal(runToExit({"--plugin", brokenPlugin("newer_abi_minor"), "--port", "0"}), 3,
                "newer than this host's ABI");
}

TEST(WorkerPluginRefusal, AProfileThePluginDoesNotImplementIsRefusedBeforeCreate) {
  // A plugin built for ABI 2.0 keeps loading and serving its rows, no-keep-alive included...
  {
    WorkerProcess worker(
        {"--plugin", fixturePlugin("abi_2_0"), "--port", "0", "--profile", "no-keep-alive"});
    ASSERT_TRUE(worker.waitReady()) << worker.stderrText();
    worker.signal(SIGTERM);
    EXPECT_EQ(worker.waitExit(), 0) << worker.stderrText();
  }
  // ...but a postgres row is refused with the plugin's name and ABI.
  expectRefusal(runToExit({"--plugin", fixturePlugin("abi_2_0"), "--port", "0", "--profile",
                           "postgres", "--postgres", "host=/nonexistent dbname=movies"}),
                3, "plugin fixture does not implement postgres (ABI 2.0)");
  // A 2.1 plugin implements what it lists, and nothing else.
  expectRefusal(runToExit({"--plugin", fixturePlugin("stats_fails"), "--port", "0", "--profile",
                           "postgres", "--postgres", "host=/nonexistent dbname=movies"}),
                3,
                "plugin fixture does not implement postgres (ABI " +
                    std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR) +
                    ")");
  // no-keep-alive is optional too: a plugin with an empty list does not get it.
  expectRefusal(runToExit({"--plugin", fixturePlugin("no_profiles"), "--port", "0", "--profile",
                           "no-keep-alive"}),
                3, "plugin fixture does not implement no-keep-alive");
  // So are the nested call's clients: threads-poco has no Beast client.
  expectRefusal(runToExit({"--plugin", pluginPath("threads-poco"), "--port", "0", "--profile",
                           "client-beast"}),
                3, "plugin threads-poco does not implement client-beast");
}

TEST(WorkerPluginRefusal, TlsIsRefusedForAPluginBuiltBeforeAbi22) {
  // The files exist, so only the plugin's ABI stands between the row and serving it.
  const TempDir dir;
  const fs::path file = dir.path() / "cert.pem";
  std::ofstream(file) << "not read before the plugin is checked\n";
  expectRefusal(
      runToExit({"--plugin", fixturePlugin("abi_2_1_lists_tls"), "--port", "0", "--profile", "tls",
                 "--tls-cert", file.string(), "--tls-key", file.string()}),
      3, "plugin fixture (ABI 2.1) cannot serve tls");
}

TEST(WorkerOptionsTls, TlsNeedsBothFilesAndTheFilesNeedTls) {
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--profile", "tls"}),
                2, "--profile tls needs --tls-cert FILE and --tls-key FILE");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--profile", "tls",
                           "--tls-cert", "/tmp/cert.pem"}),
                2, "--profile tls needs --tls-cert FILE and --tls-key FILE");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--tls-cert",
                           "/tmp/cert.pem", "--tls-key", "/tmp/key.pem"}),
                2, "--tls-cert and --tls-key are only for a row with --profile tls");
}

TEST(WorkerPluginRefusal, ABadProfileListIsRefusedNamingTheField) {
  expectRefusal(runToExit({"--inspect", fixturePlugin("too_many_profiles")}), 3,
                "descriptor field 'implemented_profile_count' is 65 (at most 64)");
  expectRefusal(runToExit({"--inspect", fixturePlugin("null_profiles")}), 3,
                "descriptor field 'implemented_profiles' is NULL but 'implemented_profile_count' "
                "is 1");
}

TEST(WorkerPluginRefusal, InspectListsTheProfilesThePluginImplements) {
  const auto profilesOf = [](const std::string& plugin) {
    WorkerProcess worker({"--inspect", plugin});
    EXPECT_EQ(worker.waitExit(), 0) << worker.stderrText();
    const auto lines = worker.stdoutLines();
    return lines.empty() ? std::string() : lines.front();
  };
  EXPECT_NE(
      profilesOf(fixturePlugin("abi_2_0")).find(R"("abi":"2.0","profiles":["no-keep-alive"])"),
      std::string::npos);
  EXPECT_NE(profilesOf(pluginPath(kGoodPlugin)).find(R"("profiles":["no-keep-alive")"),
            std::string::npos);
  // A NULL list in a 2.1 descriptor means what 2.0 meant, so unchanged 2.0 source rebuilt
  // against the 2.1 header keeps its no-keep-alive; "none" is an empty list.
  const std::string abi = std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR);
  EXPECT_NE(profilesOf(fixturePlugin("profiles_left_null"))
                .find(R"("abi":")" + abi + R"(","profiles":["no-keep-alive"])"),
            std::string::npos);
  EXPECT_NE(profilesOf(fixturePlugin("no_profiles")).find(R"("profiles":[])"), std::string::npos);
}

/// A plugin declares what its HTTP stack decides instead of the contract by bits the host
/// names; a bit the host does not know is refused, since it could not say what is excepted.
TEST(WorkerPluginRefusal, InspectNamesTheContractExceptionsAndRefusesUnknownOnes) {
  WorkerProcess declaring({"--inspect", fixturePlugin("declares_stack_framing")});
  EXPECT_EQ(declaring.waitExit(), 0) << declaring.stderrText();
  const auto lines = declaring.stdoutLines();
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines.front().find(R"("contractExceptions":["stack-framing"])"), std::string::npos)
      << lines.front();
  WorkerProcess plain({"--inspect", pluginPath(kGoodPlugin)});
  EXPECT_EQ(plain.waitExit(), 0) << plain.stderrText();
  ASSERT_FALSE(plain.stdoutLines().empty());
  EXPECT_NE(plain.stdoutLines().front().find(R"("contractExceptions":[])"), std::string::npos)
      << plain.stdoutLines().front();
  expectRefusal(runToExit({"--inspect", fixturePlugin("unknown_contract_exception")}), 3,
                "descriptor field 'contract_exceptions' has unknown bits 128 (this host knows 3)");
}

TEST(WorkerPluginRefusal, MissingEntrySymbol) {
  expectRefusal(runToExit({"--plugin", brokenPlugin("missing_entry_symbol"), "--port", "0"}), 3,
                "no entry symbol benchd_plugin_entry");
}

TEST(WorkerPluginRefusal, ZeroEnumValue) {
  expectRefusal(runToExit({"--plugin", brokenPlugin("zero_model"), "--port", "0"}), 3,
                "unknown concurrency model 0");
}

TEST(WorkerPluginRefusal, MissingLifecycleFunctionIsNamed) {
  expectRefusal(runToExit({"--plugin", fixturePlugin("missing_stop"), "--port", "0"}), 3,
                "descriptor lacks the lifecycle function 'stop'");
}

/// A descriptor string beyond its bound refuses the plugin with a message naming the field,
/// without echoing the whole string.
void expectOverlongFieldRefused(const std::string& fixture, const std::string& field,
                                std::size_t bound) {
  const Outcome outcome = runToExit({"--plugin", fixturePlugin(fixture), "--port", "0"});
  expectRefusal(outcome, 3,
                "descriptor field '" + field + "' is not NUL-terminated within " +
                    std::to_string(bound) + " bytes");
  EXPECT_EQ(outcome.error_output.find(std::string(100, 'a')), std::string::npos)
      << outcome.error_output;
}

TEST(WorkerPluginRefusal, OverlongNameIsRefusedNamingTheField) {
  expectOverlongFieldRefused("long_name", "name", BENCHD_MAX_NAME_SIZE);
}

TEST(WorkerPluginRefusal, OverlongVersionIsRefusedNamingTheField) {
  expectOverlongFieldRefused("long_version", "version", BENCHD_MAX_NAME_SIZE);
}

TEST(WorkerPluginRefusal, OverlongDescriptionIsRefusedNamingTheField) {
  expectOverlongFieldRefused("long_description", "description", BENCHD_MAX_MESSAGE_SIZE);
}

TEST(WorkerPluginRefusal, NameOutsideItsCharacterSetIsRefused) {
  expectRefusal(runToExit({"--plugin", fixturePlugin("bad_name_chars"), "--port", "0"}), 3,
                "plugin name 'Fixture_1' must be 1 to 64 characters of a-z, 0-9 and '-'");
}

TEST(WorkerPluginRefusal, InspectRefusesAnOverlongNameToo) {
  expectRefusal(runToExit({"--inspect", fixturePlugin("long_name")}), 3,
                "descriptor field 'name' is not NUL-terminated");
}

TEST(WorkerPluginRefusal, GroupWritableFile) {
  TempDir dir;
  const fs::path copy = dir.path() / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), copy);
  ::chmod(copy.c_str(), 0664);
  expectRefusal(runToExit({"--plugin", copy.string(), "--port", "0"}), 3,
                "writable by group or others");
}

TEST(WorkerPluginRefusal, GroupWritableFolderIsNamed) {
  TempDir dir;
  const fs::path folder = dir.path() / "shared";
  fs::create_directory(folder);
  ::chmod(folder.c_str(), 0775);
  const fs::path copy = folder / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), copy);
  ::chmod(copy.c_str(), 0644);
  expectRefusal(runToExit({"--plugin", copy.string(), "--port", "0"}), 3,
                "folder " + fs::canonical(folder).string() + " is writable by its group");
}

TEST(WorkerPluginRefusal, WorldWritableGrandparentFolderIsNamed) {
  TempDir dir;
  const fs::path grandparent = dir.path() / "open";
  fs::create_directories(grandparent / "plugins");
  ::chmod(grandparent.c_str(), 0777);  // no sticky bit: anyone may rename "plugins" away
  const fs::path copy = grandparent / "plugins" / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), copy);
  ::chmod(copy.c_str(), 0644);
  expectRefusal(runToExit({"--plugin", copy.string(), "--port", "0"}), 3,
                "folder " + fs::canonical(grandparent).string() + " is writable by everyone");
}

TEST(WorkerPluginRefusal, StickyWorldWritableFolderIsAcceptedLikeTmp) {
  TempDir dir;
  const fs::path sticky = dir.path() / "sticky";
  fs::create_directories(sticky / "plugins");
  ::chmod(sticky.c_str(), 01777);
  const fs::path copy = sticky / "plugins" / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), copy);
  ::chmod(copy.c_str(), 0644);
  const Outcome outcome = runToExit({"--inspect", copy.string()});
  EXPECT_EQ(outcome.exit_code, 0) << outcome.error_output;
}

TEST(WorkerPluginRefusal, FileOrFolderOfAnotherUserIsRefused) {
  if (::geteuid() != 0) {
    GTEST_SKIP() << "needs root to give a file to another user";
  }
  constexpr uid_t kNobody = 65534;
  TempDir dir;
  const fs::path copy = dir.path() / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), copy);
  ::chmod(copy.c_str(), 0644);
  ASSERT_EQ(::chown(copy.c_str(), kNobody, kNobody), 0);
  expectRefusal(runToExit({"--plugin", copy.string(), "--port", "0"}), 3,
                "owned by uid 65534, not by root or the running user");

  const fs::path folder = dir.path() / "theirs";
  fs::create_directory(folder);
  const fs::path mine = folder / "copy.so";
  fs::copy_file(pluginPath(kGoodPlugin), mine);
  ::chmod(mine.c_str(), 0644);
  ASSERT_EQ(::chown(folder.c_str(), kNobody, kNobody), 0);
  expectRefusal(runToExit({"--plugin", mine.string(), "--port", "0"}), 3,
                "folder " + fs::canonical(folder).string() + " is owned by uid 65534");
}

TEST(WorkerArguments, HostOptionsAreCheckedByNameAndRange) {
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--option", "benchd.nope=1"}),
      2,
      "unknown host option 'benchd.nope' (known: benchd.cpu_cost_ns, benchd.cpu_cost_us, "
      "benchd.max_rate)");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--option",
                           "benchd.cpu_cost_us=100001"}),
                2, "benchd.cpu_cost_us: expected an integer from 0 to 100000, got '100001'");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--option",
                           "benchd.cpu_cost_ns=-1"}),
                2, "benchd.cpu_cost_ns: expected an integer from 0 to 100000000, got '-1'");
  expectRefusal(runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", "0", "--option",
                           "benchd.max_rate=10000001"}),
                2, "benchd.max_rate: expected an integer from 0 to 10000000, got '10000001'");
}

/// The process's CPU time so far (utime + stime of /proc/PID/stat), in seconds.
double processCpuSeconds(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0.0;
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14 || index == 15) {
      ticks += std::stod(field);
    }
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

TEST(WorkerLifecycle, TheHostsCpuCostIsSpentInEveryRequestAndNeverReachesThePlugin) {
  // 100 requests at 5 ms of CPU each: half a second more than the same requests without it.
  // (The plugin would refuse an option it does not know: it never sees the host's.)
  const auto cpu_for = [](const std::vector<std::string>& extra) {
    auto worker = WorkerProcess::serve(kGoodPlugin, extra);
    const double before = processCpuSeconds(worker->pid());
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(httpRequest(worker->port(), "GET",
                            "/callbacks-asio/epoch-millis?delayCallDepth=0&delayInMillis=0")
                    .status,
                200u);
    }
    return processCpuSeconds(worker->pid()) - before;
  };
  const double plain = cpu_for({});
  const double costly = cpu_for({"--option", "benchd.cpu_cost_us=5000"});
  EXPECT_GE(costly, 0.45) << "plain " << plain;
  EXPECT_GE(costly - plain, 0.35) << "plain " << plain << ", with the cost " << costly;
  const double costly_ns = cpu_for({"--option", "benchd.cpu_cost_ns=5000000"});
  EXPECT_GE(costly_ns - plain, 0.35) << "plain " << plain << ", with the cost " << costly_ns;
}

TEST(WorkerLifecycle, TheHostsRateCapPacesTheCallsIntoTheCore) {
  // benchd.max_rate=500: 300 requests on one connection cannot end sooner than 299 slots of 2 ms
  // (0.598 s); without the cap they take a few ms each at most. A lower bound only: a busy
  // machine makes it slower, never faster.
  auto worker = WorkerProcess::serve(kGoodPlugin, {"--option", "benchd.max_rate=500"});
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 300; ++i) {
    ASSERT_EQ(httpRequest(worker->port(), "GET",
                          "/callbacks-asio/epoch-millis?delayCallDepth=0&delayInMillis=0")
                  .status,
              200u);
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(590));
  // /health is the plugin's own and never paced.
  EXPECT_EQ(httpRequest(worker->port(), "GET", "/health").status, 200u);
}

TEST(WorkerLifecycle, PortInUseIsReportedAndTheFirstWorkerKeepsServing) {
  auto first = WorkerProcess::serve(kGoodPlugin);
  expectRefusal(
      runToExit({"--plugin", pluginPath(kGoodPlugin), "--port", std::to_string(first->port())}), 4,
      "port " + std::to_string(first->port()) + " on 127.0.0.1 is already in use");
  EXPECT_EQ(httpRequest(first->port(), "GET", "/health").status, 200u);
}

TEST(WorkerLifecycle, ReadyLineDescribesThePlugin) {
  auto worker = WorkerProcess::serve(kGoodPlugin);
  const auto lines = worker->stdoutLines();
  ASSERT_FALSE(lines.empty());
  rapidjson::Document ready;
  ready.Parse(lines.front().c_str());
  ASSERT_TRUE(ready.IsObject()) << lines.front();
  EXPECT_STREQ(ready["event"].GetString(), "ready");
  EXPECT_EQ(ready["pid"].GetInt(), worker->pid());
  EXPECT_EQ(ready["port"].GetUint(), worker->port());
  EXPECT_STREQ(ready["plugin"]["name"].GetString(), "callbacks-asio");
  EXPECT_STREQ(ready["plugin"]["concurrencyModel"].GetString(), "callbacks");
  EXPECT_EQ(std::string(ready["plugin"]["abi"].GetString()),
            std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR));
}

TEST(WorkerLifecycle, StatsReportHeapAndPluginCounters) {
  auto worker = WorkerProcess::serve(kGoodPlugin);
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(httpRequest(worker->port(), "GET",
                          "/callbacks-asio/movies?directorLastName=Kubrick&delayCallDepth=0&"
                          "delayInMillis=0")
                  .status,
              200u);
  }
  const auto stats =
      worker->waitStats([](const WorkerStats& s) { return s.counter("requests_served") >= 5; });
  ASSERT_TRUE(stats);
  EXPECT_GT(stats->heap_bytes, 0);
  EXPECT_EQ(stats->counter("requests_in_flight"), 0);
  EXPECT_EQ(stats->counter("upstream_calls"), 0);
  EXPECT_EQ(stats->counter("cache_misses"), 1);
  EXPECT_EQ(stats->counter("cache_hits"), 4);
}

TEST(WorkerLifecycle, SigtermAndSigintStopGracefully) {
  for (const int signal_number : {SIGTERM, SIGINT}) {
    auto worker = WorkerProcess::serve(kGoodPlugin);
    worker->signal(signal_number);
    EXPECT_EQ(worker->waitExit(), 0) << worker->stderrText();
    const auto lines = worker->stdoutLines();
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.back(), R"({"event":"stopped","drained":true})");
  }
}

/// A plugin whose stop() never returns (hang-on-request: its thread never comes back from a
/// request) is ended by the worker itself once the stop timeout and the grace are over, the
/// plugin named, exit 5: the stop of a worker is bounded, whatever its plugin does.
TEST(WorkerLifecycle, AStopThatNeverReturnsEndsTheWorkerAfterTheTimeoutAndTheGrace) {
  WorkerProcess worker({"--plugin", testPluginDir() + "/hang-on-request/hang-on-request.so",
                        "--port", "0", "--stop-timeout-ms", "200"});
  const auto port = worker.waitReady();
  ASSERT_TRUE(port) << worker.stderrText();
  benchd::conformance::LoopbackSocket client(*port);
  ASSERT_TRUE(client.connected());
  ASSERT_TRUE(client.send("GET /hang-on-request/epoch-millis HTTP/1.1\r\nHost: x\r\n\r\n"));
  for (int wait = 0; wait < 200 && worker.stderrText().find("hanging on") == std::string::npos;
       ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(worker.stderrText().find("hanging on"), std::string::npos) << worker.stderrText();
  worker.signal(SIGTERM);
  EXPECT_EQ(worker.waitExit(std::chrono::seconds(60)), 5) << worker.stderrText();
  EXPECT_NE(worker.stderrText().find("benchd-worker: error: hang-on-request: stop() did not "
                                     "return within 5200 ms"),
            std::string::npos)
      << worker.stderrText();
}

TEST(WorkerLifecycle, FailingCreateIsAStartFailureWithABoundedMessage) {
  // BENCHD_ERR_INTERNAL from create(): the server could not be set up (4); only
  // BENCHD_ERR_INVALID_ARGUMENT means bad plugin options (2, UnknownPluginOptionIsRefused...).
  // The fixture's message fills the whole buffer without a NUL: the host prints those 512
  // bytes and nothing that lies beyond them.
  const Outcome outcome = runToExit({"--plugin", fixturePlugin("create_fails"), "--port", "0"});
  expectRefusal(outcome, 4, "fixture: create() failed: " + std::string(512, 'x') + "\n");
}

TEST(WorkerLifecycle, NoBoundPortAfterStartIsAStartFailure) {
  expectRefusal(runToExit({"--plugin", fixturePlugin("no_port"), "--port", "0"}), 4,
                "fixture: bound_port() reported no port after start()");
}

/// A counter with a bad name is skipped and reported once; the worker keeps serving and
/// reporting the good counters, and stops cleanly.
void expectBadCounterSkipped(const std::string& fixture, const std::string& warning) {
  WorkerProcess worker(
      {"--plugin", fixturePlugin(fixture), "--port", "0", "--stats-interval-ms", "50"});
  ASSERT_TRUE(worker.waitReady()) << worker.stderrText();
  for (int i = 0; i < 3; ++i) {
    const auto stats = worker.waitStats([](const WorkerStats& s) {
      return s.counters.contains("requests_in_flight") && s.counter("requests_served") == 1;
    });
    ASSERT_TRUE(stats) << worker.stderrText();
    EXPECT_EQ(stats->counters.size(), 5u) << "2 plugin counters and 3 core counters";
  }
  worker.signal(SIGTERM);
  EXPECT_EQ(worker.waitExit(), 0) << worker.stderrText();
  const std::string errors = worker.stderrText();
  const std::size_t first = errors.find(warning);
  ASSERT_NE(first, std::string::npos) << errors;
  EXPECT_EQ(errors.find(warning, first + 1), std::string::npos) << "reported once:\n" << errors;
  EXPECT_EQ(errors.find(std::string(100, 'a')), std::string::npos) << errors;
}

TEST(WorkerStatsChecks, NullCounterNameIsReportedAndSkipped) {
  expectBadCounterSkipped("null_counter_name",
                          "benchd-worker: warning: fixture: stats: a counter name is NULL; "
                          "the counter is skipped");
}

TEST(WorkerStatsChecks, OverlongCounterNameIsReportedAndSkipped) {
  expectBadCounterSkipped("long_counter_name",
                          "benchd-worker: warning: fixture: stats: a counter name is not "
                          "NUL-terminated within 256 bytes; the counter is skipped");
}

TEST(WorkerStatsChecks, FailingStatsIsAWarningNamingThePluginAndServingGoesOn) {
  WorkerProcess worker(
      {"--plugin", fixturePlugin("stats_fails"), "--port", "0", "--stats-interval-ms", "50"});
  ASSERT_TRUE(worker.waitReady()) << worker.stderrText();
  // The core's counters are still reported, line after line.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(worker.waitStats([](const WorkerStats& s) { return !s.counters.empty(); }))
        << worker.stderrText();
  }
  worker.signal(SIGTERM);
  EXPECT_EQ(worker.waitExit(), 0) << worker.stderrText();
  EXPECT_NE(worker.stderrText().find(
                "benchd-worker: warning: fixture: stats() failed: counters unavailable\n"),
            std::string::npos)
      << worker.stderrText();
}

TEST(WorkerLifecycle, FailingStopIsExitOneWithAWarningNamingThePlugin) {
  WorkerProcess worker({"--plugin", fixturePlugin("stop_fails"), "--port", "0"});
  ASSERT_TRUE(worker.waitReady()) << worker.stderrText();
  worker.signal(SIGTERM);
  EXPECT_EQ(worker.waitExit(), 1) << worker.stderrText();
  EXPECT_NE(
      worker.stderrText().find("benchd-worker: warning: fixture: stop() failed: cannot stop\n"),
      std::string::npos)
      << worker.stderrText();
}

TEST(WorkerLifecycle, EveryLifecycleCallGetsAnErrorBufferOfTheFullSize) {
  // The fixture fails any call whose buffer's struct_size is not sizeof(benchd_error), and
  // zeroes it after checking: only a host that sets it before every call gets through create,
  // start, the stats calls and stop without a failure.
  WorkerProcess worker({"--plugin", fixturePlugin("scribbles_error_size"), "--port", "0",
                        "--stats-interval-ms", "50"});
  ASSERT_TRUE(worker.waitReady()) << worker.stderrText();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(worker.waitStats([](const WorkerStats& s) {
      return s.counter("requests_served") == 1;
    })) << worker.stderrText();
  }
  worker.signal(SIGTERM);
  EXPECT_EQ(worker.waitExit(), 0) << worker.stderrText();
  EXPECT_EQ(worker.stderrText().find("failed"), std::string::npos) << worker.stderrText();
}

bool processGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat)
    return true;
  std::string pid_field;
  std::string command;
  std::string state;
  stat >> pid_field >> command >> state;
  return state == "Z" || state == "X";
}

TEST(WorkerLifecycle, DiesWithItsParent) {
  // sh starts the worker in the background, prints its pid, then becomes `sleep` (same pid),
  // so the worker's parent is a process this test can kill. The worker writes to the same
  // pipe, so its ready line says it is past start-up (its parent-death signal is set).
  common::SpawnOptions options;
  options.parent_death_signal = 0;  // sh's own death is the test's to cause
  common::ChildProcess parent(
      "/bin/sh",
      {"-c", "\"$0\" --plugin \"$1\" --port 0 2>/dev/null & echo $!; exec sleep 60", workerPath(),
       pluginPath(kGoodPlugin)},
      options);
  std::optional<pid_t> worker;
  bool ready = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!ready && !parent.stdoutClosed() && std::chrono::steady_clock::now() < deadline) {
    for (const std::string& line : parent.readStdoutLines(std::chrono::milliseconds(200))) {
      if (!worker) {
        worker = std::stoi(line);
      } else if (line.find("\"event\":\"ready\"") != std::string::npos) {
        ready = true;
      }
    }
  }
  ASSERT_TRUE(worker.has_value()) << parent.stderrText();
  ASSERT_TRUE(ready) << "worker " << *worker << " did not get ready";
  ASSERT_FALSE(processGone(*worker)) << "worker should be running";
  parent.kill();
  const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (!processGone(*worker) && std::chrono::steady_clock::now() < gone_by) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(processGone(*worker)) << "worker " << *worker << " outlived its parent";
  if (!processGone(*worker))
    ::kill(*worker, SIGKILL);
}

}  // namespace
}  // namespace benchd::testing
