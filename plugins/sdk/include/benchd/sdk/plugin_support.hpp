#pragma once
// Header-only plugin SDK: the chores every plugin's C entry points share: copying the config
// into C++ types, reporting errors across the boundary, keeping exceptions on the plugin side.

#include <benchd/plugin.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
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
  /// 2.2: the PEM files of the `tls` and `h2` profiles; empty without them (plugin.h).
  std::string tls_certificate_file;
  std::string tls_private_key_file;

  [[nodiscard]] bool hasProfile(std::string_view name) const {
    return std::find(profiles.begin(), profiles.end(), name) != profiles.end();
  }

  /// The part of benchd_server_config this SDK reads: every field up to option_count.
  static constexpr std::size_t kConfigSize =
      offsetof(benchd_server_config, option_count) + sizeof(benchd_server_config::option_count);
  /// The end of 2.2's TLS fields, read when struct_size reaches it.
  static constexpr std::size_t kTlsConfigSize =
      offsetof(benchd_server_config, tls_private_key_file) +
      sizeof(benchd_server_config::tls_private_key_file);
  /// The part of a benchd_option this SDK reads.
  static constexpr std::size_t kOptionSize =
      offsetof(benchd_option, value) + sizeof(benchd_option::value);

  /// Copies `config`, reading only the fields its struct_size covers and stepping through the
  /// options by their struct_size. Throws PluginError (BENCHD_ERR_INVALID_ARGUMENT) for a
  /// missing or too small config, zero threads, NULL arrays or entries, option entries of
  /// differing or too small struct_size, an option key not in `known_options`, or the `tls`
  /// or `h2` profile without both of its files.
  static ServerSettings from(const benchd_server_config* config,
                             std::span<const std::string_view> known_options = {}) {
    if (config == nullptr || config->struct_size < kConfigSize) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                        "server config missing or too old (" +
                            (config == nullptr ? std::string("none")
                                               : std::to_string(config->struct_size) + " bytes") +
                            ", this plugin needs at least " + std::to_string(kConfigSize) + ")");
    }
    ServerSettings settings;
    if (config->bind_address != nullptr)
      settings.bind_address = config->bind_address;
    settings.port = config->port;
    settings.threads = config->threads;
    if (settings.threads == 0) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "threads must be at least 1");
    }
    if (config->profile_count > 0 && config->profiles == nullptr) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "server config: profiles is NULL");
    }
    for (std::size_t i = 0; i < config->profile_count; ++i) {
      if (config->profiles[i] == nullptr) {
        throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                          "server config: profile " + std::to_string(i) + " is NULL");
      }
      settings.profiles.emplace_back(config->profiles[i]);
    }
    if (config->struct_size >= kTlsConfigSize) {
      if (config->tls_certificate_file != nullptr)
        settings.tls_certificate_file = config->tls_certificate_file;
      if (config->tls_private_key_file != nullptr)
        settings.tls_private_key_file = config->tls_private_key_file;
    }
    for (const char* encrypted : {"tls", "h2"}) {
      if (settings.hasProfile(encrypted) &&
          (settings.tls_certificate_file.empty() || settings.tls_private_key_file.empty())) {
        throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                          std::string("server config: the ") + encrypted +
                              " profile needs tls_certificate_file and tls_private_key_file");
      }
    }
    if (config->option_count == 0)
      return settings;
    if (config->options == nullptr) {
      throw PluginError(BENCHD_ERR_INVALID_ARGUMENT, "server config: options is NULL");
    }
    // Every element has element 0's struct_size, which is also the stride of the array.
    const std::size_t stride = config->options[0].struct_size;
    const auto* first = reinterpret_cast<const unsigned char*>(config->options);
    for (std::size_t i = 0; i < config->option_count; ++i) {
      const auto& option = *reinterpret_cast<const benchd_option*>(first + i * stride);
      if (option.struct_size != stride || stride < kOptionSize ||
          stride % alignof(benchd_option) != 0) {
        throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                          "server config: option " + std::to_string(i) + " has struct_size " +
                              std::to_string(option.struct_size) + " (option 0 has " +
                              std::to_string(stride) + ", at least " + std::to_string(kOptionSize) +
                              " is needed)");
      }
      if (option.key == nullptr || option.value == nullptr) {
        throw PluginError(
            BENCHD_ERR_INVALID_ARGUMENT,
            "server config: option " + std::to_string(i) + " has a NULL key or value");
      }
      const std::string key = option.key;
      if (std::find(known_options.begin(), known_options.end(), key) == known_options.end()) {
        std::string known;
        for (const auto known_option : known_options)
          known += (known.empty() ? "" : ", ") + std::string(known_option);
        throw PluginError(
            BENCHD_ERR_INVALID_ARGUMENT,
            "unknown option '" + key + "'" +
                (known.empty() ? " (this plugin takes none)" : " (known: " + known + ")"));
      }
      settings.options[key] = option.value;
    }
    return settings;
  }
};

/// The integer option `name` of `settings`, or `fallback` when it is not given. Throws
/// PluginError (BENCHD_ERR_INVALID_ARGUMENT) naming the option and its range for a value that is
/// not an integer from `min` to `max`; `unit`, when given, follows the range in parentheses
/// ("expected an integer from 1 to 30000 (milliseconds), got 'x'").
inline std::int64_t integerOption(const ServerSettings& settings, std::string_view name,
                                  std::int64_t fallback, std::int64_t min, std::int64_t max,
                                  std::string_view unit = {}) {
  const auto it = settings.options.find(name);
  if (it == settings.options.end())
    return fallback;
  const std::string& text = it->second;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
    throw PluginError(BENCHD_ERR_INVALID_ARGUMENT,
                      "option " + std::string(name) + ": expected an integer from " +
                          std::to_string(min) + " to " + std::to_string(max) +
                          (unit.empty() ? "" : " (" + std::string(unit) + ")") + ", got '" + text +
                          "'");
  }
  return value;
}

}  // namespace benchd::sdk
