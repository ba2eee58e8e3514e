#pragma once
// Paths and temporary folders shared by the runner tests.

#include "temp_dir.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner::testing {

namespace fs = std::filesystem;

using benchd::testing::TempDir;

/// The folder and the file of a test plugin from tests/test_plugins ("crash-on-load").
fs::path testPluginFolder(const std::string& name);
fs::path testPluginFile(const std::string& name);

/// The built approach plugins' folder, and its file names ("callbacks-asio.so", ...).
fs::path approachPluginFolder();
std::vector<std::string> approachPluginFiles();
fs::path approachPluginFile(const std::string& name);

/// The broken plugins of tests/worker ("wrong_abi_major", ...).
fs::path brokenPluginFolder();

fs::path workerExecutable();
fs::path benchdExecutable();

/// A scenario file's text: the original's header line, then `rows`.
std::string scenarioCsv(std::string_view rows);

/// Copies `file` into `folder` as `file_name`, keeping its permissions.
fs::path copyInto(const fs::path& file, const fs::path& folder, const std::string& file_name);

}  // namespace benchd::runner::testing
