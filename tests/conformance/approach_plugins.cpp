#include "approach_plugins.hpp"

#include <algorithm>

namespace benchd::testing {

const std::vector<std::string>& approachPlugins() {
  static const std::vector<std::string> plugins = {
#include "approach_plugins.inc"
  };
  return plugins;
}

std::string testNameOf(std::string plugin) {
  std::replace(plugin.begin(), plugin.end(), '-', '_');
  return plugin;
}

}  // namespace benchd::testing
