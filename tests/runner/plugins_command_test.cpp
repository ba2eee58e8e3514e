// `benchd plugins` as a process: folders, accepted and rejected plugins as text and JSON, and
// the exit codes (0 even with rejections, 1 when it cannot search, 2 for bad arguments).
#include "runner_test_support.hpp"

#include <benchd/common/child_process.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>

namespace benchd::runner {
namespace {

using namespace std::chrono_literals;

/// Runs benchd with a controlled environment: no $BENCHD_PLUGIN_PATH unless given, and the
/// build tree's benchd-worker (empty $BENCHD_WORKER counts as unset).
common::CompletedProcess benchd(const std::vector<std::string>& arguments,
                                const std::string& plugin_path = {}) {
  common::SpawnOptions options;
  options.environment = {{"BENCHD_PLUGIN_PATH", plugin_path}, {"BENCHD_WORKER", ""}};
  return common::runToCompletion(testing::benchdExecutable(), arguments, 60s, options);
}

std::vector<std::string> fixtureFolders() {
  return {"--plugin-dir", testing::testPluginFolder("crash-on-load").string(), "--plugin-dir",
          testing::testPluginFolder("crash-on-request").string()};
}

bool contains(const std::string& text, const std::string& fragment) {
  return text.find(fragment) != std::string::npos;
}

/// The first line of `text` containing `fragment`, or "" (column widths depend on the paths).
std::string lineWith(const std::string& text, const std::string& fragment) {
  const std::size_t at = text.find(fragment);
  if (at == std::string::npos)
    return {};
  const std::size_t start = text.rfind('\n', at);
  const std::size_t from = start == std::string::npos ? 0 : start + 1;
  return text.substr(from, text.find('\n', at) - from);
}

TEST(PluginsCommand, ListsFoldersAcceptedAndRejectedPlugins) {
  const common::CompletedProcess result = benchd([] {
    auto arguments = fixtureFolders();
    arguments.insert(arguments.begin(), "plugins");
    return arguments;
  }());
  EXPECT_EQ(result.status.describe(), "exit code 0") << result.stderr_text;
  const std::string& out = result.stdout_text;
  EXPECT_TRUE(out.starts_with("Plugin folders, in search order:\n")) << out;
  EXPECT_TRUE(contains(lineWith(out, testing::testPluginFolder("crash-on-load").string()),
                       "(--plugin-dir)"))
      << out;
  EXPECT_TRUE(contains(out, testing::approachPluginFolder().string())) << out;
  EXPECT_TRUE(contains(out, "(built-in)")) << out;
  EXPECT_TRUE(contains(out, "Inspected with " + testing::workerExecutable().string())) << out;
  EXPECT_TRUE(contains(out, "NAME ")) << out;
  const std::string accepted_line = lineWith(out, "  crash-on-request ");
  EXPECT_TRUE(contains(accepted_line, " 0.1.0 ")) << out;
  EXPECT_TRUE(contains(accepted_line, " os-threads ")) << out;
  EXPECT_TRUE(contains(accepted_line, testing::testPluginFile("crash-on-request").string())) << out;
  EXPECT_TRUE(contains(out, "callbacks-asio ")) << out;  // from the built-in folder
  EXPECT_TRUE(contains(out, "Rejected plugins (1):\n  " +
                                testing::testPluginFile("crash-on-load").string() +
                                "\n    crashed while loading (signal 11, SIGSEGV)\n"))
      << out;
  EXPECT_EQ(result.stderr_text, "");
}

TEST(PluginsCommand, JsonHasTheSameCatalog) {
  std::vector<std::string> arguments = {"plugins", "--json"};
  for (std::string& folder : fixtureFolders())
    arguments.push_back(std::move(folder));
  const common::CompletedProcess result = benchd(arguments, "/nonexistent/from-env");
  ASSERT_EQ(result.status.describe(), "exit code 0") << result.stderr_text;
  rapidjson::Document document;
  document.Parse(result.stdout_text.c_str());
  ASSERT_TRUE(document.IsObject()) << result.stdout_text;

  const auto& folders = document["folders"];
  ASSERT_EQ(folders.Size(), 4U);
  EXPECT_STREQ(folders[0]["origin"].GetString(), "--plugin-dir");
  EXPECT_TRUE(folders[0]["searched"].GetBool());
  EXPECT_STREQ(folders[2]["path"].GetString(), "/nonexistent/from-env");
  EXPECT_STREQ(folders[2]["origin"].GetString(), "$BENCHD_PLUGIN_PATH");
  EXPECT_FALSE(folders[2]["searched"].GetBool());
  EXPECT_STREQ(folders[2]["note"].GetString(), "no such folder");
  EXPECT_STREQ(folders[3]["origin"].GetString(), "built-in");

  const auto& accepted = document["accepted"];
  ASSERT_TRUE(accepted.IsArray());
  ASSERT_GE(accepted.Size(), 2U);
  EXPECT_STREQ(accepted[0]["name"].GetString(), "crash-on-request");
  EXPECT_STREQ(accepted[0]["concurrencyModel"].GetString(), "os-threads");
  EXPECT_EQ(accepted[0]["path"].GetString(), testing::testPluginFile("crash-on-request").string());
  const auto& rejected = document["rejected"];
  ASSERT_EQ(rejected.Size(), 1U);
  EXPECT_STREQ(rejected[0]["name"].GetString(), "crash-on-load");
  EXPECT_STREQ(rejected[0]["reason"].GetString(), "crashed while loading (signal 11, SIGSEGV)");
}

TEST(PluginsCommand, AMissingPluginDirCannotBeSearched) {
  const common::CompletedProcess result =
      benchd({"plugins", "--plugin-dir", "/nonexistent/plugins"});
  EXPECT_EQ(result.status.describe(), "exit code 1");
  EXPECT_EQ(result.stderr_text,
            "benchd plugins: error: --plugin-dir /nonexistent/plugins: no such folder (expected a "
            "folder of approach plugin .so files)\n");
  EXPECT_EQ(result.stdout_text, "");
}

TEST(PluginsCommand, BadArgumentsAreUsageErrors) {
  const common::CompletedProcess unknown = benchd({"plugins", "--frobnicate"});
  EXPECT_EQ(unknown.status.describe(), "exit code 2");
  EXPECT_TRUE(unknown.stderr_text.starts_with("benchd plugins: unknown option '--frobnicate'\n"))
      << unknown.stderr_text;
  const common::CompletedProcess missing = benchd({"plugins", "--plugin-dir"});
  EXPECT_EQ(missing.status.describe(), "exit code 2");
  EXPECT_TRUE(missing.stderr_text.starts_with("benchd plugins: --plugin-dir: missing value\n"));
}

TEST(PluginsCommand, IsListedAndHasHelp) {
  const common::CompletedProcess overview = benchd({"--help"});
  EXPECT_TRUE(contains(overview.stdout_text, "  plugins ")) << overview.stdout_text;
  const common::CompletedProcess help = benchd({"plugins", "--help"});
  EXPECT_EQ(help.status.describe(), "exit code 0");
  EXPECT_TRUE(help.stdout_text.starts_with("usage: benchd plugins [--plugin-dir DIR]... [--json]"));
}

}  // namespace
}  // namespace benchd::runner
