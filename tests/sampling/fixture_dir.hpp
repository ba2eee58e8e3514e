#pragma once

#include <filesystem>
#include <string_view>

namespace benchd::sampling::testing {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
/// (tests/scenario has the same helper; neither is in a shared test library yet.)
class FixtureDir {
 public:
  FixtureDir();
  ~FixtureDir();
  FixtureDir(const FixtureDir&) = delete;
  FixtureDir& operator=(const FixtureDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

  /// Writes (replaces) path() / `relative_name`, creating parent directories.
  void write(const std::filesystem::path& relative_name, std::string_view content) const;

 private:
  std::filesystem::path path_;
};

}  // namespace benchd::sampling::testing
