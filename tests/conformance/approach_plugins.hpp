#pragma once

#include <string>
#include <vector>

namespace benchd::testing {

/// File stems of every approach plugin the build produced, e.g. "callbacks-asio".
const std::vector<std::string>& approachPlugins();

/// Name for a parameterised test: "callbacks-asio" -> "callbacks_asio".
std::string testNameOf(std::string plugin);

}  // namespace benchd::testing
