#pragma once
// Paths and temporary folders shared by the runner tests.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner::testing {

namespace fs = std::filesystem;

/// A private (0700) temporary folder, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  /// Creates `name` inside with `mode` (applied with chmod, so the umask does not interfere).
  [[nodiscard]] fs::path subfolder(const std::string& name, fs::perms mode) const;

 private:
  fs::path path_;
};

/// The folder and the file of a test plugin from tests/runner/test_plugins ("crash-on-load").
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
