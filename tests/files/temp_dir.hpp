#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace benchd::testing {

/// A private (0700) folder under $TMPDIR (or /tmp), made for one test and removed with
/// everything in it on destruction. The one temporary-folder helper of every test suite.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  /// Writes (replaces) path() / `relative_name`, creating parent folders. Throws
  /// std::runtime_error when it cannot.
  void write(const std::filesystem::path& relative_name, std::string_view content) const;

  /// Creates path() / `name` with exactly `mode` (chmod after creation, so the umask does not
  /// interfere) and returns it.
  [[nodiscard]] std::filesystem::path subfolder(const std::string& name,
                                                std::filesystem::perms mode) const;

 private:
  std::filesystem::path path_;
};

}  // namespace benchd::testing
