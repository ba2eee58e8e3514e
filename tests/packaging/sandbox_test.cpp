// The system unit (packaging/debian/benchd.service) sets MemoryDenyWriteExecute=yes: no page
// may be writable and executable, none may become executable. Plugins are loaded with dlopen
// and the charts are drawn by Qt (whose regular-expression JIT wants such pages) inside that
// sandbox. Without a systemd to start the unit here, mdwe_exec applies the same rule with the
// kernel's switch for it (prctl PR_SET_MDWE), and a real `benchd run` over every approach
// plugin, charts included, runs under it.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kUnsupportedKernel = 77;

/// mdwe_exec, built beside this test (tests/packaging/CMakeLists.txt); found from this
/// executable rather than a compile definition, so no object carries the build's path.
std::string mdweExec() {
  return (fs::read_symlink("/proc/self/exe").parent_path() / "benchd_mdwe_exec").string();
}

/// Skips the calling test when this kernel has no PR_SET_MDWE (before Linux 6.3).
bool kernelLacksMdwe() {
  const CommandResult probe = runCommand(mdweExec(), {mdweExec(), "--probe"});
  return probe.exit_code == kUnsupportedKernel;
}

std::size_t linesOf(const fs::path& file) {
  std::ifstream in(file);
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);)
    ++lines;
  return lines;
}

TEST(MemoryDenyWriteExecute, TheWrapperRefusesWritableExecutablePagesInTheProgramItRuns) {
  if (kernelLacksMdwe())
    GTEST_SKIP() << "this kernel has no PR_SET_MDWE (Linux 6.3 and later)";
  EXPECT_EQ(runCommand(mdweExec(), {"--probe"}).out, "allowed\n")
      << "without the setting the probe maps its page";
  const CommandResult sandboxed = runCommand(mdweExec(), {mdweExec(), "--probe"});
  EXPECT_EQ(sandboxed.exit_code, 0) << sandboxed.err;
  EXPECT_EQ(sandboxed.out, "refused\n") << "the setting holds across execve";
}

// Without QT_ENABLE_REGEXP_JIT=0 (which the unit also sets), so the charts are shown to work
// even if Qt tried its JIT.
TEST(MemoryDenyWriteExecute, ARunOverEveryPluginAndItsChartsWorkUnderIt) {
  if (kernelLacksMdwe())
    GTEST_SKIP() << "this kernel has no PR_SET_MDWE (Linux 6.3 and later)";
  const TempDir dir;
  {
    std::ifstream full(sourceDir() + "/scenarios/scenarios-ci.csv");
    std::ofstream one_row(dir.path() / "short.csv");
    std::string line;
    for (int kept = 0; kept < 2 && std::getline(full, line); ++kept)
      one_row << line << '\n';
  }
  std::size_t plugins = 0;
  for (const auto& entry : fs::directory_iterator(pluginDir())) {
    if (entry.path().extension() == ".so")
      ++plugins;
  }
  ASSERT_GT(plugins, 0U);

  const CommandResult run =
      runCommand(mdweExec(),
                 {cliPath(), "run", "--repeat", "1", (dir.path() / "short.csv").string(), "-w", "0",
                  "-t", "1", "-o", (dir.path() / "out").string()},
                 std::chrono::minutes(5));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const fs::path results = dir.path() / "out" / "short";
  EXPECT_EQ(linesOf(results / "results.csv"), plugins + 1)
      << "a header and one line per approach plugin";
  if (reportPath().empty())
    GTEST_SKIP() << "built without Qt: no chart renderer to check";
  EXPECT_TRUE(fs::exists(results / "results.png")) << run.out << run.err;
  EXPECT_TRUE(fs::exists(results / "ci-get-time-no-delay" / "callbacks-asio.png")) << run.out;
}

// A postgres row: the private cluster (initdb, pg_ctl, the postmaster and its backends) runs
// under the same rule, which benchd's children inherit, beside the plugin; its lines are drawn
// in the charts.
TEST(MemoryDenyWriteExecute, APostgresRowItsClusterAndItsChartsWorkUnderIt) {
  if (kernelLacksMdwe())
    GTEST_SKIP() << "this kernel has no PR_SET_MDWE (Linux 6.3 and later)";
  const TempDir dir;
  std::ofstream(dir.path() / "pg.csv")
      << "scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,"
         "requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds\n"
         "pg,get-movies.js,postgres|no-cache,0,0,4,,0,2\n";
  const CommandResult run =
      runCommand(mdweExec(),
                 {cliPath(), "run", "--repeat", "1", (dir.path() / "pg.csv").string(), "-a",
                  "callbacks-asio", "-o", (dir.path() / "out").string()},
                 std::chrono::minutes(3));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  std::ifstream markdown_file(dir.path() / "out" / "pg" / "results.md");
  const std::string markdown{std::istreambuf_iterator<char>(markdown_file),
                             std::istreambuf_iterator<char>()};
  EXPECT_NE(markdown.find("PostgreSQL (all its processes): "), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("**failed**"), std::string::npos) << markdown;
  if (reportPath().empty())
    GTEST_SKIP() << "built without Qt: no chart renderer to check";
  EXPECT_TRUE(fs::exists(dir.path() / "out" / "pg" / "pg" / "callbacks-asio.png")) << run.out;
}

}  // namespace
}  // namespace benchd::testing
