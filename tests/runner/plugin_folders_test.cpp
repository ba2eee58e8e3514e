// The plugin search order and how benchd tells a build-tree run from an installed one.
#include "runner_test_support.hpp"

#include <benchd/runner/plugin_folders.hpp>

#include <gtest/gtest.h>

namespace benchd::runner {
namespace {

namespace fs = std::filesystem;

Installation someInstallation() {
  return {false,
          "/usr/lib/benchd/plugins",
          "/usr/libexec/benchd/benchd-worker",
          "/usr/libexec/benchd/benchd-report",
          "/usr/share/benchd/scenarios",
          ""};
}

TEST(PluginFolders, ExplicitThenEnvironmentThenBuiltIn) {
  const auto folders =
      pluginFolders({"/one", "two"}, std::string_view("/env/a::/env/b:"), someInstallation());
  const std::vector<PluginFolder> expected = {
      {"/one", FolderOrigin::kPluginDirOption},
      {"two", FolderOrigin::kPluginDirOption},
      {"/env/a", FolderOrigin::kEnvironment},
      {"/env/b", FolderOrigin::kEnvironment},
      {"/usr/lib/benchd/plugins", FolderOrigin::kBuiltIn},
  };
  EXPECT_EQ(folders, expected);
}

TEST(PluginFolders, UnsetOrEmptyEnvironmentAddsNothing) {
  const std::vector<PluginFolder> only_built_in = {
      {"/usr/lib/benchd/plugins", FolderOrigin::kBuiltIn}};
  EXPECT_EQ(pluginFolders({}, std::nullopt, someInstallation()), only_built_in);
  EXPECT_EQ(pluginFolders({}, std::string_view(""), someInstallation()), only_built_in);
  EXPECT_EQ(pluginFolders({}, std::string_view(":"), someInstallation()), only_built_in);
}

TEST(PluginFolders, AnInstalledBenchdSearchesTheLocalFolderBeforeItsOwn) {
  Installation installation = someInstallation();
  installation.local_plugin_dir = "/usr/local/lib/benchd/plugins";
  const std::vector<PluginFolder> expected = {
      {"/one", FolderOrigin::kPluginDirOption},
      {"/usr/local/lib/benchd/plugins", FolderOrigin::kLocal},
      {"/usr/lib/benchd/plugins", FolderOrigin::kBuiltIn},
  };
  EXPECT_EQ(pluginFolders({"/one"}, std::nullopt, installation), expected);
}

TEST(PluginFolders, OriginsHaveUserFacingNames) {
  EXPECT_EQ(originName(FolderOrigin::kPluginDirOption), "--plugin-dir");
  EXPECT_EQ(originName(FolderOrigin::kEnvironment), "$BENCHD_PLUGIN_PATH");
  EXPECT_EQ(originName(FolderOrigin::kLocal), "local");
  EXPECT_EQ(originName(FolderOrigin::kBuiltIn), "built-in");
}

TEST(Installation, AnExecutableInTheBuildTreeUsesTheBuildTreesFiles) {
  const Installation installation =
      installationFor(testing::workerExecutable().parent_path() / "benchd");
  EXPECT_TRUE(installation.build_tree);
  EXPECT_EQ(installation.plugin_dir, testing::approachPluginFolder());
  EXPECT_EQ(installation.worker_path, testing::workerExecutable());
  // benchd-report is built beside benchd-worker (when Qt is there).
  EXPECT_EQ(installation.report_path, testing::workerExecutable().parent_path() / "benchd-report");
  // A developer's build never loads what an administrator installed locally.
  EXPECT_TRUE(installation.local_plugin_dir.empty()) << installation.local_plugin_dir;
}

TEST(Installation, ThisTestRunsFromTheBuildTree) {
  EXPECT_TRUE(currentInstallation().build_tree) << currentExecutable();
}

TEST(Installation, AnExecutableElsewhereUsesTheInstalledFiles) {
  const Installation installation = installationFor("/usr/bin/benchd");
  EXPECT_FALSE(installation.build_tree);
  EXPECT_EQ(installation.plugin_dir.filename(), "plugins");
  EXPECT_EQ(installation.plugin_dir.parent_path().filename(), "benchd");
  EXPECT_NE(installation.plugin_dir, testing::approachPluginFolder());
  EXPECT_EQ(installation.worker_path.filename(), "benchd-worker");
  EXPECT_NE(installation.worker_path, testing::workerExecutable());
  EXPECT_EQ(installation.local_plugin_dir, "/usr/local/lib/benchd/plugins");
}

TEST(Installation, InstalledFilesAreFoundBesideTheExecutablesPrefix) {
  const Installation installation = installationFor("/opt/some/prefix/bin/benchd");
  const auto under_prefix = [](const fs::path& path) {
    return path.string().rfind("/opt/some/prefix/", 0) == 0;
  };
  EXPECT_TRUE(under_prefix(installation.plugin_dir)) << installation.plugin_dir;
  EXPECT_TRUE(under_prefix(installation.worker_path)) << installation.worker_path;
  EXPECT_TRUE(under_prefix(installation.report_path)) << installation.report_path;
  EXPECT_EQ(installation.report_path.parent_path(), installation.worker_path.parent_path());
  EXPECT_EQ(installation.report_path.filename(), "benchd-report");
  EXPECT_TRUE(under_prefix(installation.scenarios_dir)) << installation.scenarios_dir;
  EXPECT_EQ(installation.scenarios_dir.filename(), "scenarios");
}

TEST(Installation, ASiblingFolderWithTheSamePrefixIsNotTheBuildTree) {
  const fs::path build = testing::approachPluginFolder().parent_path();
  EXPECT_FALSE(installationFor(build.string() + "-copy/bin/benchd").build_tree);
}

TEST(WorkerPath, TheEnvironmentOverridesUnlessEmpty) {
  EXPECT_EQ(workerPath(std::string_view("/opt/worker"), someInstallation()), "/opt/worker");
  EXPECT_EQ(workerPath(std::string_view(""), someInstallation()),
            "/usr/libexec/benchd/benchd-worker");
  EXPECT_EQ(workerPath(std::nullopt, someInstallation()), "/usr/libexec/benchd/benchd-worker");
}

TEST(ReportPath, TheEnvironmentOverridesUnlessEmpty) {
  EXPECT_EQ(reportPath(std::string_view("/opt/report"), someInstallation()), "/opt/report");
  EXPECT_EQ(reportPath(std::string_view(""), someInstallation()),
            "/usr/libexec/benchd/benchd-report");
  EXPECT_EQ(reportPath(std::nullopt, someInstallation()), "/usr/libexec/benchd/benchd-report");
}

}  // namespace
}  // namespace benchd::runner
