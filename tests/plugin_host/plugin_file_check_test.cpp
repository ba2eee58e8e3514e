// The plugin file checks run on the descriptor that is then loaded: replacing the file at its
// path after the checks does not change what gets loaded (no time-of-check to time-of-use gap).

#include "build_paths.hpp"
#include "temp_dir.hpp"

#include <benchd/plugin_host/plugin_file_check.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>
#include <benchd/plugin_host/plugin_loader.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;
using benchd::testing::TempDir;

fs::path builtPlugin(const std::string& name) {
  return fs::path(benchd::testing::pluginDir()) / (name + ".so");
}

fs::path privateCopy(const fs::path& from, const fs::path& to) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  ::chmod(to.c_str(), 0644);
  return to;
}

TEST(PluginFileCheck, WhatWasCheckedIsWhatIsLoadedEvenIfThePathIsSwapped) {
  TempDir dir;
  const fs::path path = privateCopy(builtPlugin("callbacks-asio"), dir.path() / "approach.so");
  benchd::plugin_host::CheckedPluginFile checked = benchd::plugin_host::openCheckedPluginFile(path);
  // Another plugin takes the path between the checks and the load.
  const fs::path other = privateCopy(builtPlugin("coroutines-asio"), dir.path() / "other.so");
  fs::rename(other, path);
  const benchd::plugin_host::LoadedPlugin loaded =
      benchd::plugin_host::loadPlugin(std::move(checked));
  EXPECT_EQ(loaded.info.name, "callbacks-asio");
  EXPECT_EQ(loaded.path, fs::canonical(path));
  // Loading by path now finds the new file, which is a different library.
  EXPECT_EQ(benchd::plugin_host::loadPlugin(path).info.name, "coroutines-asio");
}

TEST(PluginFileCheck, ASymlinkIsResolvedOnceAndItsTargetChecked) {
  TempDir dir;
  const fs::path real = privateCopy(builtPlugin("callbacks-asio"), dir.path() / "real.so");
  fs::create_symlink(real, dir.path() / "link.so");
  const benchd::plugin_host::CheckedPluginFile checked =
      benchd::plugin_host::openCheckedPluginFile(dir.path() / "link.so");
  EXPECT_EQ(checked.path(), fs::canonical(real));
  ::chmod(real.c_str(), 0666);
  EXPECT_THROW((void)benchd::plugin_host::openCheckedPluginFile(dir.path() / "link.so"),
               benchd::plugin_host::PluginLoadError);
}

TEST(PluginFileCheck, AFolderIsNotAPlugin) {
  TempDir dir;
  try {
    (void)benchd::plugin_host::openCheckedPluginFile(dir.path());
    FAIL() << "a folder was accepted";
  } catch (const benchd::plugin_host::PluginLoadError& error) {
    EXPECT_NE(std::string(error.what()).find("not a regular file"), std::string::npos)
        << error.what();
  }
}

}  // namespace
