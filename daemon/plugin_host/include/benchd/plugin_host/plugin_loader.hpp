#pragma once

#include <benchd/plugin.h>
#include <benchd/plugin_host/plugin_file_check.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::plugin_host {

/// The names of the BENCHD_CONTRACT_EXCEPTION_* bits, as the worker reports them and
/// CONTRACT.md ("Contract exceptions") and verify-plugin name them.
inline constexpr std::pair<std::uint64_t, const char*> kContractExceptionNames[] = {
    {BENCHD_CONTRACT_EXCEPTION_STACK_FRAMING, "stack-framing"},
    {BENCHD_CONTRACT_EXCEPTION_IDLE_HEADER_TIMEOUT, "idle-header-timeout"},
};

/// What a plugin says about itself, copied out of its descriptor.
struct PluginInfo {
  std::string name;
  std::string version;
  std::string description;
  std::string concurrency_model;  ///< "os-threads", "green-threads", "callbacks", ...
  std::string io_stack;
  unsigned abi_major = 0;
  unsigned abi_minor = 0;
  /// The server profiles the plugin implements itself (ABI 2.1 implemented_profiles; a 2.0
  /// plugin implements "no-keep-alive" only). The core's "no-cache" and "read-write" are not
  /// listed: every plugin gets them.
  std::vector<std::string> implemented_profiles;
  /// The contract exceptions the plugin declares (ABI 2.2 contract_exceptions), by name
  /// (kContractExceptionNames), in bit order; empty for most plugins.
  std::vector<std::string> contract_exceptions;

  /// Whether a row with this profile can run on the plugin.
  [[nodiscard]] bool implementsProfile(std::string_view profile) const;
};

/// A plugin that passed every check. The library is never unloaded (plugins may leave threads
/// or atexit handlers behind), so the descriptor stays valid for the life of the process.
struct LoadedPlugin {
  std::filesystem::path path;
  const benchd_plugin_descriptor* descriptor = nullptr;
  PluginInfo info;
};

/// Opens and checks the file (openCheckedPluginFile), loads that open file with RTLD_NOW |
/// RTLD_LOCAL, resolves
/// BENCHD_PLUGIN_ENTRY_SYMBOL and validates the descriptor: struct size, ABI major equal to the
/// host's, minor not newer, every string NUL-terminated within its bound (BENCHD_MAX_*_SIZE;
/// nothing past it is read), non-empty name made of [a-z0-9-], a known concurrency model and
/// every lifecycle function present (a missing one is named). Throws PluginLoadError naming the
/// file and the reason. Not thread-safe with respect to other dlopen users only in the ways dlopen
/// itself is not.
LoadedPlugin loadPlugin(const std::filesystem::path& path);

/// The same for a file already opened and checked; loads exactly that file, whatever has
/// happened to its path since. Its descriptor stays open for the life of the process, like the
/// library itself (see the comment in the implementation).
LoadedPlugin loadPlugin(CheckedPluginFile file);

/// "callbacks" for BENCHD_MODEL_CALLBACKS etc.; empty for unknown values.
std::string concurrencyModelName(benchd_concurrency_model model);

}  // namespace benchd::plugin_host
