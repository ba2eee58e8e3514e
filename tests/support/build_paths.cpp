#include "build_paths.hpp"

namespace benchd::testing {

std::string workerPath() {
  return BENCHD_WORKER_PATH;
}

std::string cliPath() {
  return BENCHD_CLI_PATH;
}

std::string reportPath() {
  return BENCHD_REPORT_PATH;
}

std::string pluginDir() {
  return BENCHD_PLUGIN_DIR;
}

std::string testPluginDir() {
  return BENCHD_TEST_PLUGIN_DIR;
}

std::string brokenPluginDir() {
  return BENCHD_BROKEN_PLUGIN_DIR;
}

std::string fixturePluginDir() {
  return BENCHD_FIXTURE_PLUGIN_DIR;
}

std::string sourceDir() {
  return BENCHD_SOURCE_DIR;
}

std::string buildDir() {
  return BENCHD_BUILD_DIR;
}

}  // namespace benchd::testing
