#pragma once

#include <filesystem>
#include <string_view>

namespace benchd::scenario::testing {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  /// Writes `content` to path() / `relative_name`, creating parent directories.
  void write(const std::filesystem::path& relative_name, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace benchd::scenario::testing
