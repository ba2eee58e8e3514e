// An installed benchd (cmake --install into a temporary prefix) finds its own plugins, worker
// and scenarios without flags, and not the build tree's.
#include "build_paths.hpp"
#include "command_runner.hpp"
#include "runner_test_support.hpp"

#include <gtest/gtest.h>

namespace benchd::runner::testing {
namespace {

using benchd::testing::CommandResult;
using benchd::testing::runCommand;

TEST(Install, AnInstalledBenchdFindsItsPluginsAndScenarios) {
  const TempDir dir;
  const fs::path prefix = dir.path() / "prefix";
  const CommandResult install = runCommand(
      BENCHD_CMAKE_COMMAND, {"--install", benchd::testing::buildDir(), "--prefix", prefix.string()},
      std::chrono::minutes(2));
  ASSERT_EQ(install.exit_code, 0) << install.out << install.err;
  const fs::path benchd = prefix / "bin" / "benchd";
  ASSERT_TRUE(fs::exists(benchd));

  const CommandResult plugins = runCommand(benchd.string(), {"plugins"});
  ASSERT_EQ(plugins.exit_code, 0) << plugins.out << plugins.err;
  for (const std::string& file : approachPluginFiles()) {
    const std::string name = fs::path(file).stem().string();
    EXPECT_NE(plugins.out.find(name), std::string::npos) << name << "\n" << plugins.out;
  }
  EXPECT_NE(plugins.out.find(prefix.string()), std::string::npos)
      << "the plugins must come from the installed folder\n"
      << plugins.out;
  EXPECT_EQ(plugins.out.find(approachPluginFolder().string()), std::string::npos)
      << "an installed benchd must not use the build tree\n"
      << plugins.out;

  const CommandResult plan = runCommand(benchd.string(), {"run", "--plan"});
  ASSERT_EQ(plan.exit_code, 0) << plan.out << plan.err;
  EXPECT_NE(plan.out.find((prefix / "share").string()), std::string::npos) << plan.out;
  EXPECT_NE(plan.out.find("scenarios-quick.csv: 9 rows x " +
                          std::to_string(approachPluginFiles().size()) + " approaches"),
            std::string::npos)
      << plan.out;
}

}  // namespace
}  // namespace benchd::runner::testing
