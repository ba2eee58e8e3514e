#include "fixture_dir.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace benchd::sampling::testing {

FixtureDir::FixtureDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "benchd-sampling-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp failed for " + pattern);
  }
  path_ = pattern;
}

FixtureDir::~FixtureDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void FixtureDir::write(const std::filesystem::path& relative_name, std::string_view content) const {
  const std::filesystem::path file = path_ / relative_name;
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) {
    throw std::runtime_error("cannot write " + file.string());
  }
}

}  // namespace benchd::sampling::testing
