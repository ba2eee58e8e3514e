// inspectPlugins over real files, each inspected by a real `benchd-worker --inspect`: the built
// approach plugins are accepted with their metadata; broken, crashing, hanging and unsafe ones
// are rejected with the reason; duplicates and folder problems are handled by the search rules.
#include "runner_test_support.hpp"

#include <benchd/plugin.h>
#include <benchd/runner/plugin_catalog.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <set>

namespace benchd::runner {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kAbi = std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR);

PluginCatalog inspect(const std::vector<PluginFolder>& folders,
                      const InspectOptions& options = {}) {
  return inspectPlugins(folders, testing::workerExecutable(), options);
}

PluginFolder dirOption(const fs::path& path) {
  return {path, FolderOrigin::kPluginDirOption};
}

std::string reasons(const PluginCatalog& catalog) {
  std::string text;
  for (const RejectedPlugin& plugin : catalog.rejected)
    text += plugin.path.string() + ": " + plugin.reason + "\n";
  return text;
}

TEST(PluginCatalog, AcceptsEveryBuiltApproachPluginWithItsMetadata) {
  const PluginCatalog catalog =
      inspect({{testing::approachPluginFolder(), FolderOrigin::kBuiltIn}});
  EXPECT_TRUE(catalog.rejected.empty()) << reasons(catalog);
  std::vector<std::string> files;
  for (const PluginDescription& plugin : catalog.accepted) {
    files.push_back(plugin.path.filename().string());
    EXPECT_EQ(plugin.path.parent_path(), testing::approachPluginFolder());
    EXPECT_EQ(plugin.name + ".so", plugin.path.filename().string());
    EXPECT_FALSE(plugin.version.empty()) << plugin.name;
    EXPECT_FALSE(plugin.description.empty()) << plugin.name;
    EXPECT_FALSE(plugin.io_stack.empty()) << plugin.name;
    EXPECT_EQ(plugin.abi, kAbi) << plugin.name;
    const std::set<std::string> models = {"os-threads", "green-threads", "callbacks", "coroutines",
                                          "other"};
    EXPECT_TRUE(models.contains(plugin.concurrency_model)) << plugin.concurrency_model;
  }
  std::vector<std::string> expected = testing::approachPluginFiles();
  std::sort(expected.begin(), expected.end());
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(files, expected) << "accepted in file-name order, exactly the built plugins";

  const PluginDescription* callbacks = catalog.findAccepted("callbacks-asio");
  ASSERT_NE(callbacks, nullptr);
  EXPECT_EQ(callbacks->concurrency_model, "callbacks");
  EXPECT_EQ(callbacks->io_stack, "Boost.Asio 1.81 + Beast; HTTP/2 on libnghttp2");
  ASSERT_EQ(catalog.folders.size(), 1U);
  EXPECT_TRUE(catalog.folders[0].searched);
  EXPECT_EQ(catalog.worker_path, testing::workerExecutable());
}

TEST(PluginCatalog, RejectsTheBrokenPluginsWithTheWorkersReasons) {
  const PluginCatalog catalog = inspect({dirOption(testing::brokenPluginFolder())});
  EXPECT_TRUE(catalog.accepted.empty());
  ASSERT_EQ(catalog.rejected.size(), 4U) << reasons(catalog);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"missing_entry_symbol", "no entry symbol benchd_plugin_entry"},
      {"newer_abi_minor", "newer than this host's ABI"},
      {"wrong_abi_major", "major versions must match"},
      {"zero_model", "unknown concurrency model 0"},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const RejectedPlugin& plugin = catalog.rejected[i];
    EXPECT_EQ(plugin.name, expected[i].first);
    EXPECT_EQ(plugin.path, testing::brokenPluginFolder() / (expected[i].first + ".so"));
    EXPECT_NE(plugin.reason.find(expected[i].second), std::string::npos) << plugin.reason;
    EXPECT_TRUE(plugin.reason.starts_with("plugin " + plugin.path.string() + ": "))
        << "the worker's line without its 'benchd-worker: error: ' prefix: " << plugin.reason;
    EXPECT_EQ(plugin.reason.find('\n'), std::string::npos);
  }
}

TEST(PluginCatalog, APluginThatCrashesWhileLoadingIsRejectedNotFatal) {
  const PluginCatalog catalog = inspect({dirOption(testing::testPluginFolder("crash-on-load"))});
  ASSERT_EQ(catalog.rejected.size(), 1U);
  EXPECT_EQ(catalog.rejected[0].name, "crash-on-load");
  EXPECT_EQ(catalog.rejected[0].reason, "crashed while loading (signal 11, SIGSEGV)");
}

TEST(PluginCatalog, APluginThatHangsWhileLoadingIsKilledAfterTheTimeout) {
  const auto started = std::chrono::steady_clock::now();
  const PluginCatalog catalog = inspect({dirOption(testing::testPluginFolder("hang-on-load"))},
                                        InspectOptions{.timeout = 500ms, .parallel = 4});
  ASSERT_EQ(catalog.rejected.size(), 1U);
  EXPECT_TRUE(catalog.rejected[0].reason.starts_with("did not answer within 500 ms"))
      << catalog.rejected[0].reason;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 30s);
}

TEST(PluginCatalog, AHangingPluginDoesNotFailTheOthersOfItsBatch) {
  const testing::TempDir temp;
  const fs::path folder = temp.subfolder("plugins", fs::perms::owner_all);
  testing::copyInto(testing::testPluginFile("hang-on-load"), folder, "a-hang.so");
  testing::copyInto(testing::approachPluginFile("callbacks-asio"), folder, "b-good.so");
  testing::copyInto(testing::testPluginFile("crash-on-load"), folder, "c-crash.so");
  const PluginCatalog catalog =
      inspect({dirOption(folder)}, InspectOptions{.timeout = 500ms, .parallel = 4});
  ASSERT_EQ(catalog.accepted.size(), 1U) << reasons(catalog);
  EXPECT_EQ(catalog.accepted[0].name, "callbacks-asio");
  ASSERT_EQ(catalog.rejected.size(), 2U);
  EXPECT_EQ(catalog.rejected[0].name, "a-hang");
  EXPECT_TRUE(catalog.rejected[0].reason.starts_with("did not answer within 500 ms"));
  EXPECT_EQ(catalog.rejected[1].reason, "crashed while loading (signal 11, SIGSEGV)");
}

TEST(PluginCatalog, TheCrashOnRequestFixtureIsAValidPlugin) {
  const PluginCatalog catalog = inspect({dirOption(testing::testPluginFolder("crash-on-request"))});
  ASSERT_EQ(catalog.accepted.size(), 1U) << reasons(catalog);
  EXPECT_EQ(catalog.accepted[0].name, "crash-on-request");
  EXPECT_EQ(catalog.accepted[0].concurrency_model, "os-threads");
  EXPECT_EQ(catalog.accepted[0].path, testing::testPluginFile("crash-on-request"));
}

TEST(PluginCatalog, RejectsAPluginInAWorldWritableFolderWithoutStickyBit) {
  const testing::TempDir temp;
  const fs::path open_folder = temp.subfolder("open", fs::perms::all);
  testing::copyInto(testing::approachPluginFile("callbacks-asio"), open_folder,
                    "callbacks-asio.so");
  const PluginCatalog catalog = inspect({dirOption(open_folder)});
  EXPECT_TRUE(catalog.accepted.empty());
  ASSERT_EQ(catalog.rejected.size(), 1U);
  EXPECT_NE(catalog.rejected[0].reason.find("is writable by everyone"), std::string::npos)
      << catalog.rejected[0].reason;
}

TEST(PluginCatalog, TheFirstFolderWinsADuplicateName) {
  const testing::TempDir temp;
  const fs::path first = temp.subfolder("first", fs::perms::owner_all);
  const fs::path second = temp.subfolder("second", fs::perms::owner_all);
  const fs::path original = testing::approachPluginFile("callbacks-asio");
  const fs::path winner = testing::copyInto(original, first, "callbacks-asio.so");
  const fs::path same_file_name = testing::copyInto(original, second, "callbacks-asio.so");
  const fs::path other_file_name = testing::copyInto(original, second, "renamed.so");

  const PluginCatalog catalog = inspect({dirOption(first), {second, FolderOrigin::kEnvironment}});
  ASSERT_EQ(catalog.accepted.size(), 1U);
  EXPECT_EQ(catalog.accepted[0].path, winner);
  ASSERT_EQ(catalog.rejected.size(), 2U) << reasons(catalog);
  EXPECT_EQ(catalog.rejected[0].path, same_file_name);
  EXPECT_EQ(catalog.rejected[1].path, other_file_name);
  for (const RejectedPlugin& rejected : catalog.rejected) {
    EXPECT_EQ(rejected.name, "callbacks-asio");
    EXPECT_EQ(rejected.reason, "plugin name 'callbacks-asio' is already provided by " +
                                   winner.string() +
                                   ", found earlier in the search order (the first one wins)");
  }
}

TEST(PluginCatalog, AMissingExplicitFolderIsAnError) {
  try {
    inspect({dirOption("/nonexistent/plugins")});
    FAIL() << "a missing --plugin-dir folder was accepted";
  } catch (const PluginSearchError& error) {
    EXPECT_STREQ(error.what(),
                 "--plugin-dir /nonexistent/plugins: no such folder (expected a folder of "
                 "approach plugin .so files)");
  }
}

TEST(PluginCatalog, AnExplicitFileInsteadOfAFolderIsAnError) {
  EXPECT_THROW(inspect({dirOption(testing::testPluginFile("crash-on-load"))}), PluginSearchError);
}

TEST(PluginCatalog, OtherMissingFoldersAreSkippedWithANote) {
  const PluginCatalog catalog = inspect({{"/nonexistent/env", FolderOrigin::kEnvironment},
                                         {"/nonexistent/built-in", FolderOrigin::kBuiltIn},
                                         dirOption(testing::testPluginFolder("crash-on-request"))});
  ASSERT_EQ(catalog.folders.size(), 3U);
  EXPECT_FALSE(catalog.folders[0].searched);
  EXPECT_EQ(catalog.folders[0].note, "no such folder");
  EXPECT_FALSE(catalog.folders[1].searched);
  EXPECT_TRUE(catalog.folders[2].searched);
  EXPECT_EQ(catalog.accepted.size(), 1U);
}

TEST(PluginCatalog, TheSameFolderListedTwiceIsSearchedOnce) {
  const fs::path folder = testing::testPluginFolder("crash-on-request");
  const PluginCatalog catalog =
      inspect({dirOption(folder), {folder / "." / "", FolderOrigin::kBuiltIn}});
  EXPECT_EQ(catalog.accepted.size(), 1U);
  EXPECT_TRUE(catalog.rejected.empty()) << reasons(catalog);
  ASSERT_EQ(catalog.folders.size(), 2U);
  EXPECT_FALSE(catalog.folders[1].searched);
  EXPECT_EQ(catalog.folders[1].note, "already searched (listed earlier)");
}

TEST(PluginCatalog, OnlySharedLibrariesDirectlyInTheFolderAreInspected) {
  const testing::TempDir temp;
  const fs::path folder = temp.subfolder("plugins", fs::perms::owner_all);
  std::ofstream(folder / "README") << "not a plugin\n";
  std::ofstream(folder / "libthing.so.1") << "not a plugin either\n";
  const fs::path nested = folder / "nested";
  fs::create_directory(nested);
  testing::copyInto(testing::testPluginFile("crash-on-load"), nested, "crash-on-load.so");
  const PluginCatalog catalog = inspect({dirOption(folder)});
  EXPECT_TRUE(catalog.accepted.empty());
  EXPECT_TRUE(catalog.rejected.empty()) << reasons(catalog);
  EXPECT_TRUE(catalog.folders[0].searched);
}

TEST(PluginCatalog, InspectsManyPluginsInParallelBatchesInAStableOrder) {
  const testing::TempDir temp;
  const fs::path folder = temp.subfolder("plugins", fs::perms::owner_all);
  for (const char* name : {"e", "c", "a", "d", "b"})
    testing::copyInto(testing::testPluginFile("crash-on-load"), folder, std::string(name) + ".so");
  const PluginCatalog catalog = inspect({dirOption(folder)}, InspectOptions{.parallel = 2});
  ASSERT_EQ(catalog.rejected.size(), 5U);
  std::string order;
  for (const RejectedPlugin& plugin : catalog.rejected) {
    order += plugin.name;
    EXPECT_EQ(plugin.reason, "crashed while loading (signal 11, SIGSEGV)");
  }
  EXPECT_EQ(order, "abcde");
}

TEST(PluginCatalog, AWorkerThatCannotBeRunIsAnError) {
  try {
    inspectPlugins({dirOption(testing::testPluginFolder("crash-on-request"))},
                   "/nonexistent/benchd-worker");
    FAIL() << "searched without a worker";
  } catch (const PluginSearchError& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/benchd-worker"), std::string::npos);
    EXPECT_NE(std::string(error.what()).find("$BENCHD_WORKER"), std::string::npos);
  }
}

}  // namespace
}  // namespace benchd::runner
