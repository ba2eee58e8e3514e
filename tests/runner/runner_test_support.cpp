#include "runner_test_support.hpp"

#include "build_paths.hpp"
#include "scenario_csv.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <sys/stat.h>

namespace benchd::runner::testing {

fs::path testPluginFolder(const std::string& name) {
  return fs::path(benchd::testing::testPluginDir()) / name;
}

fs::path testPluginFile(const std::string& name) {
  return testPluginFolder(name) / (name + ".so");
}

fs::path approachPluginFolder() {
  return benchd::testing::pluginDir();
}

std::vector<std::string> approachPluginFiles() {
  std::vector<std::string> files;
  const std::string_view list = BENCHD_APPROACH_PLUGIN_FILES;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (comma > start)
      files.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return files;
}

fs::path approachPluginFile(const std::string& name) {
  return approachPluginFolder() / (name + ".so");
}

fs::path brokenPluginFolder() {
  return benchd::testing::brokenPluginDir();
}

fs::path workerExecutable() {
  return benchd::testing::workerPath();
}

fs::path benchdExecutable() {
  return benchd::testing::cliPath();
}

fs::path copyInto(const fs::path& file, const fs::path& folder, const std::string& file_name) {
  fs::path copy = folder / file_name;
  fs::copy_file(file, copy, fs::copy_options::overwrite_existing);
  return copy;
}

std::string scenarioCsv(std::string_view rows) {
  // Built by appending: g++ 12 reports a false -Warray-bounds for `std::string + literal` here.
  constexpr std::string_view kHeader = benchd::testing::kScenarioCsvHeader;
  std::string text;
  text.reserve(kHeader.size() + rows.size());
  text.append(kHeader);
  text.append(rows);
  return text;
}

}  // namespace benchd::runner::testing
