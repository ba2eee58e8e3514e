#pragma once

#include <stdexcept>

namespace benchd::plugin_host {

/// Why a plugin file cannot be used. what() is a complete sentence naming the file and the
/// reason, meant to be shown to the user as is.
class PluginLoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace benchd::plugin_host
