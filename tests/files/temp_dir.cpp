#include "temp_dir.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace benchd::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "benchd-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

void TempDir::write(const fs::path& relative_name, std::string_view content) const {
  const fs::path file = path_ / relative_name;
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
}

fs::path TempDir::subfolder(const std::string& name, fs::perms mode) const {
  fs::path folder = path_ / name;
  fs::create_directory(folder);
  fs::permissions(folder, mode, fs::perm_options::replace);
  return folder;
}

}  // namespace benchd::testing
