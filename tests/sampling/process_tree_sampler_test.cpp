// ProcessTreeSampler against a real process tree: a shell whose two subshells spin until told
// to stop, then exit and are reaped by the shell (their time moves into its cutime), while a
// `sleep` child lives on. The tree's CPU is counted while the children live and after they are
// reaped, never twice; its processes are counted; a tree whose root has gone is not present.
#include <benchd/sampling/process_tree_sampler.hpp>

#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <temp_dir.hpp>
#include <thread>

extern char** environ;

namespace benchd::sampling {
namespace {

using namespace std::chrono_literals;

TEST(ProcessTreeSampler, CountsLiveAndReapedChildrenOnceAndEndsWithTheRoot) {
  const benchd::testing::TempDir dir;
  const std::string stop = (dir.path() / "stop").string();
  const std::string script =
      "for i in 1 2; do (while [ ! -e '" + stop + "' ]; do :; done) & done; wait; exec sleep 60";
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  pid_t shell = 0;
  ASSERT_EQ(::posix_spawn(&shell, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ),
            0);
  const auto started = std::chrono::steady_clock::now();
  ProcessTreeSampler sampler(shell);
  std::uint64_t total_micros = 0;

  // Both subshells spin: three processes, well over half a core.
  std::this_thread::sleep_for(600ms);
  const ProcessSample busy = sampler.sample();
  total_micros += busy.cpu_micros;
  EXPECT_TRUE(busy.present);
  EXPECT_EQ(busy.threads, 3U) << "the shell and its two subshells";
  EXPECT_GT(busy.cpu_percent, 50.0);
  EXPECT_GT(busy.rss_bytes, 0U);

  // They stop and the shell reaps them, then becomes `sleep` (exec: the same pid).
  std::ofstream(stop) << "stop\n";
  ProcessSample after;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::this_thread::sleep_for(50ms);
    after = sampler.sample();
    total_micros += after.cpu_micros;
    if (after.threads == 1U)
      break;
  }
  EXPECT_TRUE(after.present);
  EXPECT_EQ(after.threads, 1U) << "the subshells are gone";
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GT(total_micros, 500'000U) << "the spinning subshells' time, reaped or not";
  const auto cpus = static_cast<double>(std::max(1U, std::thread::hardware_concurrency()));
  EXPECT_LE(static_cast<double>(total_micros), elapsed * cpus * 1e6 * 1.05)
      << "no time counted twice";

  ::kill(shell, SIGKILL);
  int status = 0;
  ::waitpid(shell, &status, 0);
  EXPECT_FALSE(sampler.sample().present);
}

}  // namespace
}  // namespace benchd::sampling
