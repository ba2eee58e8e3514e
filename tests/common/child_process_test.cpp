// ChildProcess and runToCompletion against /bin/sh: exit codes and signals described, output
// captured and streamed line by line, timeouts that kill, and the child's clean start (signal
// mask, inherited descriptors, affinity, environment, parent-death signal).
#include <benchd/common/child_process.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace benchd::common {
namespace {

using namespace std::chrono_literals;

const std::filesystem::path kShell = "/bin/sh";

CompletedProcess shell(const std::string& script, std::chrono::milliseconds timeout = 20s,
                       const SpawnOptions& options = {}) {
  return runToCompletion(kShell, {"-c", script}, timeout, options);
}

/// Reads stdout lines until `count` have arrived or the child's stdout closes.
std::vector<std::string> readLines(ChildProcess& child, std::size_t count) {
  std::vector<std::string> lines;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (lines.size() < count && !child.stdoutClosed() &&
         std::chrono::steady_clock::now() < deadline) {
    for (std::string& line : child.readStdoutLines(1s))
      lines.push_back(std::move(line));
  }
  return lines;
}

TEST(ExitStatusText, DescribesExitCodesAndSignals) {
  EXPECT_EQ(describeExit(3 << 8), "exit code 3");
  EXPECT_EQ(describeExit(0), "exit code 0");
  EXPECT_EQ(describeExit(SIGKILL), "signal 9 (SIGKILL)");
  EXPECT_EQ(describeExit(SIGSEGV | 0x80), "signal 11 (SIGSEGV), core dumped");
  EXPECT_EQ(signalName(SIGTERM), "SIGTERM");
  EXPECT_EQ(signalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(signalName(SIGRTMIN + 1), "SIGRTMIN+1");
  EXPECT_EQ(signalName(1000), "unknown signal");
}

TEST(RunToCompletion, ReportsTheExitCodeAndCapturesBothStreams) {
  const CompletedProcess result = shell("echo out; echo err >&2; exit 3");
  EXPECT_FALSE(result.timed_out);
  EXPECT_TRUE(result.status.exited());
  EXPECT_EQ(result.status.exit_code, 3);
  EXPECT_EQ(result.status.describe(), "exit code 3");
  EXPECT_EQ(result.stdout_text, "out\n");
  EXPECT_EQ(result.stderr_text, "err\n");
}

TEST(RunToCompletion, NamesTheSignalThatKilledTheChild) {
  const CompletedProcess result = shell("ulimit -c 0; kill -SEGV $$");
  ASSERT_TRUE(result.status.signalled()) << result.status.describe();
  EXPECT_EQ(result.status.signal_number, SIGSEGV);
  EXPECT_EQ(result.status.describe(), "signal 11 (SIGSEGV)");
}

TEST(RunToCompletion, KillsAChildStillRunningAtTheTimeout) {
  const auto started = std::chrono::steady_clock::now();
  const CompletedProcess result = shell("echo before; exec sleep 60", 300ms);
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.status.describe(), "signal 9 (SIGKILL)");
  EXPECT_EQ(result.stdout_text, "before\n");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);  // not the child's 60 s
}

TEST(ChildProcessSpawn, AMissingProgramThrowsWithTheReason) {
  try {
    ChildProcess child("/nonexistent/program", {});
    FAIL() << "spawned a program that does not exist";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(),
                 "cannot start /nonexistent/program: exec: No such file or directory");
  }
}

TEST(ChildProcessSpawn, AddsEnvironmentVariables) {
  SpawnOptions options;
  options.environment = {{"BENCHD_CHILD_TEST", "from the parent"}, {"HOME", "/replaced"}};
  const CompletedProcess result = shell("echo \"$BENCHD_CHILD_TEST|$HOME\"", 20s, options);
  EXPECT_EQ(result.stdout_text, "from the parent|/replaced\n");
}

TEST(ChildProcessSpawn, AppliesTheCpuAffinity) {
  cpu_set_t allowed;
  ASSERT_EQ(::sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  unsigned cpu = 0;
  while (!CPU_ISSET(cpu, &allowed))
    ++cpu;
  SpawnOptions options;
  options.cpu_affinity = {cpu};
  const CompletedProcess result = shell("grep Cpus_allowed_list /proc/self/status", 20s, options);
  EXPECT_EQ(result.stdout_text, "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n");
}

TEST(ChildProcessSpawn, DoesNotLeakDescriptorsWithoutCloseOnExec) {
  const int leaky = ::open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 0);
  const CompletedProcess result =
      shell("test -e /proc/self/fd/" + std::to_string(leaky) + " && echo leaked || echo clean");
  ::close(leaky);
  EXPECT_EQ(result.stdout_text, "clean\n");
}

TEST(ChildProcessSpawn, ResetsTheSignalMaskSoSigtermStillStopsTheChild) {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  sigset_t previous;
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &term, &previous), 0);
  ChildProcess child(kShell, {"-c", "echo ready; exec sleep 60"});
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  ASSERT_EQ(readLines(child, 1), std::vector<std::string>{"ready"});
  EXPECT_EQ(child.stop(20s).describe(), "signal 15 (SIGTERM)");
}

TEST(ChildProcessSpawn, DiesWhenTheSpawningThreadExits) {
  std::optional<ChildProcess> child;
  std::thread spawner([&child] {
    child.emplace(kShell, std::vector<std::string>{"-c", "exec sleep 60"});
  });
  spawner.join();
  ASSERT_TRUE(child);
  const auto status = child->waitExit(20s);
  ASSERT_TRUE(status) << "the child outlived the thread that spawned it";
  EXPECT_EQ(status->describe(), "signal 9 (SIGKILL)");
}

TEST(ChildProcessOutput, StreamsStdoutLinesWhileTheChildRuns) {
  ChildProcess child(kShell, {"-c", "echo first; echo second; printf partial; exec sleep 60"});
  EXPECT_EQ(readLines(child, 2), (std::vector<std::string>{"first", "second"}));
  EXPECT_FALSE(child.tryWait()) << "the lines must arrive before the child exits";
  EXPECT_FALSE(child.waitExit(50ms));
  EXPECT_TRUE(child.signal(SIGTERM));
  ASSERT_TRUE(child.waitExit(20s));
  EXPECT_EQ(child.exitStatus()->describe(), "signal 15 (SIGTERM)");
  // At end of file the unterminated last line is delivered as a line.
  EXPECT_EQ(readLines(child, 1), std::vector<std::string>{"partial"});
  EXPECT_FALSE(child.signal(SIGTERM)) << "no signal to a reaped child";
}

TEST(ChildProcessOutput, KeepsTheLastStderrLines) {
  ChildProcess child(kShell, {"-c", "for i in 1 2 3 4 5; do echo line$i >&2; done; exit 1"});
  EXPECT_TRUE(child.drainOutput(20s));
  EXPECT_EQ(child.stderrTail(2), (std::vector<std::string>{"line4", "line5"}));
  EXPECT_EQ(child.stderrTail(10).size(), 5U);
  ASSERT_TRUE(child.waitExit(20s));
  EXPECT_EQ(child.exitStatus()->exit_code, 1);
}

TEST(ChildProcessStop, EscalatesToSigkillWhenSigtermIsIgnored) {
  ChildProcess child(kShell, {"-c", "trap '' TERM; echo ready; exec sleep 60"});
  ASSERT_EQ(readLines(child, 1), std::vector<std::string>{"ready"});
  EXPECT_EQ(child.stop(200ms).describe(), "signal 9 (SIGKILL)");
}

TEST(ChildProcessStop, ReportsAChildThatAlreadyExitedOnItsOwn) {
  ChildProcess child(kShell, {"-c", "exit 7"});
  ASSERT_TRUE(child.waitExit(20s));
  EXPECT_EQ(child.stop(1s).describe(), "exit code 7");
  EXPECT_EQ(child.kill().describe(), "exit code 7");
}

TEST(ChildProcessLifetime, MovesKeepTheChildAndTheDestructorReapsIt) {
  ChildProcess first(kShell, {"-c", "exec sleep 60"});
  const pid_t pid = first.pid();
  ChildProcess second(std::move(first));
  EXPECT_EQ(second.pid(), pid);
  EXPECT_EQ(first.pid(), -1);  // NOLINT(bugprone-use-after-move): the moved-from state
  { ChildProcess third(std::move(second)); }  // killed and reaped here
  EXPECT_NE(::kill(pid, 0), 0) << "the destructor left the child running or unreaped";
}

}  // namespace
}  // namespace benchd::common
