#pragma once
// Header-only plugin SDK: the chores every plugin's C entry points share: copying the config
// into C++ types, reporting errors across the boundary, keeping exceptions on the plugin side.

#include <benchd/plugin.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::sdk {

/// Thrown inside a plugin to fail a call with a specific status; guardedCall() converts it.
class PluginError : public std::runtime_error {
 public:
  PluginError(benchd_status status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  [[nodiscard]] benchd_status status() const noexcept { return status_; }

 private:
  benchd_status status_;
};

/// Writes `message` into the caller's error buffer, truncated to fit. A null buffer or one
/// whose struct_size is too small for the message field is left alone.
inline void setError(benchd_error* error, std::string_view message) {
  if (error == nullptr || error->struct_size < offsetof(benchd_error, message) + 1)
    return;
  const std::size_t capacity =
      std::min(sizeof(error->message), error->struct_size - offsetof(benchd_error, message));
  const std::size_t length = std::min(message.size(), capacity - 1);
  std::memcpy(error->message, message.data(), length);
  error->message[length] = '\0';
}

/// Runs `body` and turns every exception into a status plus message, so none crosses the C
/// boundary.
template <typename Body>
benchd_status guardedCall(benchd_error* error, Body&& body) noexcept {
  try {
    body();
    return BENCHD_OK;
  } catch (const PluginError& e) {
    setError(error, e.what());
    return e.status();
  } catch (const std::exception& e) {
    setError(error, e.what());
    return BENCHD_ERR_INTERNAL;
  } catch (...) {
    setError(error, "unknown exception");
    return BENCHD_ERR_INTERNAL;
  }
}

/// benchd_server_config copied into owning C++ types.
struct ServerSettings {
  std::string bind_address = "127.0.0.1";
  unsigned short port = 0;
  unsigned threads = 1;
  std::vector<std::string> profiles;
  std::map<std::string, std::string, std::less<>> options;

  [[nodiscard]] bool hasProfile(std::string_view name) const {
    return std::find(profiles.begin(), profiles.end(), name) != profiles.end();
  }

  /// Copies `config`, reading only the fields its struct_size covers. Throws PluginError
  /// (BENCHD_ERR_INVALID_ARGUMENT) for a missing config, zero threads or an option key not in
  /// `known_options`.
  static ServerSettings from(const benchd_server_config* config,
                             std::span<const std::string_view> known_options = {}) {
    if (config == nullptr || config->struct_size < offsetof(benchd_server_config, options)) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "server config missing or too old");
    }
    ServerSettings settings;
    if (config->bind_address != nullptr)
      settings.bind_address = config->bind_address;
    settings.port = config->port;
    settings.threads = config->threads;
    if (settings.threads == 0) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "threads must be at least 1");
    }
    for (std::size_t i = 0; i < config->profile_count; ++i) {
      settings.profiles.emplace_back(config->profiles[i]);
    }
    for (std::size_t i = 0; i < config->option_count; ++i) {
      const std::string key = config->options[i].key;
      if (std::find(known_options.begin(), known_options.end(), key) == known_options.end()) {
        std::string known;
        for (const auto option : known_options)
          known += (known.empty() ? "" : ", ") + std::string(option);
        throw PluginError(
            BENCHD_ERR_INVALID_ARGUMENT,
            "unknown option '" + key + "'" +
                (known.empty() ? " (this plugin takes none)" : " (known: " + known + ")"));
      }
      settings.options[key] = config->options[i].value;
    }
    return settings;
  }
};

}  // namespace benchd::sdk
