#include <benchd/microservice/service_profile.hpp>
#include <benchd/plugin_host/plugin_file_check.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>
#include <benchd/plugin_host/plugin_loader.hpp>
#include <benchd/sdk/plugin_entry.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>

namespace benchd::plugin_host {

namespace {

std::string orEmpty(const char* text) {
  return text == nullptr ? std::string() : text;
}

bool isValidName(const std::string& name) {
  if (name.empty() || name.size() > 64)
    return false;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok)
      return false;
  }
  return true;
}

/// A descriptor string, read without passing `bound` bytes. NULL reads as empty when
/// `optional`; a string with no NUL within the bound refuses the plugin, naming the field.
std::string boundedField(const std::string& where, const char* field, const char* text,
                         std::size_t bound, bool optional) {
  if (text == nullptr) {
    if (optional)
      return {};
    throw PluginLoadError(where + ": descriptor field '" + field + "' is NULL");
  }
  const std::size_t length = ::strnlen(text, bound);
  if (length == bound) {
    throw PluginLoadError(where + ": descriptor field '" + field +
                          "' is not NUL-terminated within " + std::to_string(bound) +
                          " bytes (at most " + std::to_string(bound - 1) + " characters)");
  }
  return {text, length};
}

/// The part of the descriptor this host needs; a plugin built for ABI X.0 has at least this.
constexpr std::size_t kMinimumDescriptorSize =
    offsetof(benchd_plugin_descriptor, destroy) + sizeof(benchd_plugin_descriptor::destroy);

/// The descriptor's implemented_profiles (ABI 2.1), bounded like names. A descriptor that does
/// not reach them (ABI 2.0), or leaves the list NULL, implements the transport's profiles, which
/// every 2.0 plugin honours (sdk::kTransportProfiles): a 2.0 plugin's unchanged source rebuilt
/// against the 2.1 header (the new fields zero) must mean what it meant. A plugin that
/// implements none of them lists nothing with a non-NULL pointer and a count of 0.
std::vector<std::string> implementedProfiles(const std::string& where,
                                             const benchd_plugin_descriptor* descriptor) {
  constexpr std::size_t kEnd = offsetof(benchd_plugin_descriptor, implemented_profile_count) +
                               sizeof(benchd_plugin_descriptor::implemented_profile_count);
  constexpr std::size_t kMostProfiles = 64;
  if (descriptor->abi_minor < 1 || descriptor->struct_size < kEnd ||
      (descriptor->implemented_profiles == nullptr && descriptor->implemented_profile_count == 0)) {
    return {std::begin(sdk::kTransportProfiles), std::end(sdk::kTransportProfiles)};
  }
  if (descriptor->implemented_profile_count > kMostProfiles) {
    throw PluginLoadError(where + ": descriptor field 'implemented_profile_count' is " +
                          std::to_string(descriptor->implemented_profile_count) + " (at most " +
                          std::to_string(kMostProfiles) + ")");
  }
  if (descriptor->implemented_profile_count > 0 && descriptor->implemented_profiles == nullptr) {
    throw PluginLoadError(where +
                          ": descriptor field 'implemented_profiles' is NULL but "
                          "'implemented_profile_count' is " +
                          std::to_string(descriptor->implemented_profile_count));
  }
  std::vector<std::string> profiles;
  for (std::size_t index = 0; index < descriptor->implemented_profile_count; ++index) {
    const std::string field = "implemented_profiles[" + std::to_string(index) + "]";
    profiles.emplace_back(boundedField(where, field.c_str(),
                                       descriptor->implemented_profiles[index],
                                       BENCHD_MAX_NAME_SIZE, false));
  }
  return profiles;
}

/// The names of the descriptor's contract_exceptions bits (ABI 2.2, appended): none when the
/// descriptor does not reach the field. Unknown bits are refused: the host could not tell what
/// the plugin does not hold to.
std::vector<std::string> contractExceptions(const std::string& where,
                                            const benchd_plugin_descriptor* descriptor) {
  constexpr std::size_t kEnd = offsetof(benchd_plugin_descriptor, contract_exceptions) +
                               sizeof(benchd_plugin_descriptor::contract_exceptions);
  if (descriptor->abi_minor < 2 || descriptor->struct_size < kEnd)
    return {};
  const std::uint64_t bits = descriptor->contract_exceptions;
  if ((bits & ~std::uint64_t{BENCHD_CONTRACT_EXCEPTIONS_KNOWN}) != 0) {
    throw PluginLoadError(where + ": descriptor field 'contract_exceptions' has unknown bits " +
                          std::to_string(bits & ~std::uint64_t{BENCHD_CONTRACT_EXCEPTIONS_KNOWN}) +
                          " (this host knows " + std::to_string(BENCHD_CONTRACT_EXCEPTIONS_KNOWN) +
                          ")");
  }
  std::vector<std::string> names;
  for (const auto& [bit, name] : kContractExceptionNames) {
    if ((bits & bit) != 0)
      names.emplace_back(name);
  }
  return names;
}

/// Checks the descriptor and returns what it says about the plugin.
PluginInfo validateDescriptor(const std::string& where,
                              const benchd_plugin_descriptor* descriptor) {
  if (descriptor == nullptr) {
    throw PluginLoadError(where + ": " BENCHD_PLUGIN_ENTRY_SYMBOL " returned no descriptor");
  }
  // The version fields come first in every ABI version, so they are checked before the size:
  // a plugin from another major version gets the more useful message.
  if (descriptor->abi_major != BENCHD_ABI_MAJOR) {
    throw PluginLoadError(
        where + ": built for plugin ABI " + std::to_string(descriptor->abi_major) + "." +
        std::to_string(descriptor->abi_minor) + ", but this host speaks ABI " +
        std::to_string(BENCHD_ABI_MAJOR) + "." + std::to_string(BENCHD_ABI_MINOR) +
        " (major versions must match; rebuild the plugin against this SDK)");
  }
  if (descriptor->abi_minor > BENCHD_ABI_MINOR) {
    throw PluginLoadError(where + ": built for plugin ABI " +
                          std::to_string(descriptor->abi_major) + "." +
                          std::to_string(descriptor->abi_minor) + ", newer than this host's ABI " +
                          std::to_string(BENCHD_ABI_MAJOR) + "." +
                          std::to_string(BENCHD_ABI_MINOR) + " (upgrade benchd)");
  }
  if (descriptor->struct_size < kMinimumDescriptorSize) {
    throw PluginLoadError(where + ": descriptor is " + std::to_string(descriptor->struct_size) +
                          " bytes, ABI " + std::to_string(BENCHD_ABI_MAJOR) + ".0 needs at least " +
                          std::to_string(kMinimumDescriptorSize));
  }
  PluginInfo info;
  info.name = boundedField(where, "name", descriptor->name, BENCHD_MAX_NAME_SIZE, false);
  info.version = boundedField(where, "version", descriptor->version, BENCHD_MAX_NAME_SIZE, true);
  info.description =
      boundedField(where, "description", descriptor->description, BENCHD_MAX_MESSAGE_SIZE, true);
  info.io_stack = boundedField(where, "io_stack", descriptor->io_stack, BENCHD_MAX_NAME_SIZE, true);
  const std::string& name = info.name;
  if (!isValidName(name)) {
    throw PluginLoadError(where + ": plugin name '" + name +
                          "' must be 1 to 64 characters of a-z, 0-9 and '-'");
  }
  if (concurrencyModelName(descriptor->concurrency_model).empty()) {
    throw PluginLoadError(where + ": unknown concurrency model " +
                          std::to_string(static_cast<int>(descriptor->concurrency_model)));
  }
  const std::pair<const char*, bool> lifecycle[] = {
      {"create", descriptor->create != nullptr},
      {"start", descriptor->start != nullptr},
      {"bound_port", descriptor->bound_port != nullptr},
      {"stats", descriptor->stats != nullptr},
      {"stop", descriptor->stop != nullptr},
      {"destroy", descriptor->destroy != nullptr},
  };
  for (const auto& [function, present] : lifecycle) {
    if (!present) {
      throw PluginLoadError(where + ": descriptor lacks the lifecycle function '" + function +
                            "' (create, start, bound_port, stats, stop and destroy are all "
                            "required)");
    }
  }
  info.concurrency_model = concurrencyModelName(descriptor->concurrency_model);
  info.abi_major = descriptor->abi_major;
  info.abi_minor = descriptor->abi_minor;
  info.implemented_profiles = implementedProfiles(where, descriptor);
  info.contract_exceptions = contractExceptions(where, descriptor);
  return info;
}

}  // namespace

bool PluginInfo::implementsProfile(std::string_view profile) const {
  return microservice::isCoreProfile(profile) ||
         std::find(implemented_profiles.begin(), implemented_profiles.end(), profile) !=
             implemented_profiles.end();
}

std::string concurrencyModelName(benchd_concurrency_model model) {
  switch (model) {
    case BENCHD_MODEL_OS_THREADS:
      return "os-threads";
    case BENCHD_MODEL_GREEN_THREADS:
      return "green-threads";
    case BENCHD_MODEL_CALLBACKS:
      return "callbacks";
    case BENCHD_MODEL_COROUTINES:
      return "coroutines";
    case BENCHD_MODEL_OTHER:
      return "other";
  }
  return {};
}

LoadedPlugin loadPlugin(const std::filesystem::path& path) {
  return loadPlugin(openCheckedPluginFile(path));
}

LoadedPlugin loadPlugin(CheckedPluginFile file) {
  const std::filesystem::path& canonical = file.path();
  const std::string where = "plugin " + canonical.string();

  // The checked descriptor, not the path: see CheckedPluginFile. Never dlclosed: see
  // LoadedPlugin.
  void* library = ::dlopen(file.loadPath().c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw PluginLoadError(where + ": cannot be loaded: " + orEmpty(::dlerror()));
  }
  // The library is known to the dynamic loader by the name /proc/self/fd/N, and dlopen()
  // returns an already loaded library whose name matches. Closing the descriptor would let a
  // later plugin get the same N and be mistaken for this one, so it stays open as long as the
  // library stays loaded: for the life of the process.
  file.release();
  ::dlerror();
  void* symbol = ::dlsym(library, BENCHD_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    throw PluginLoadError(where + ": no entry symbol " BENCHD_PLUGIN_ENTRY_SYMBOL
                                  " (is it a benchd plugin, built with BENCHD_PLUGIN_EXPORT?)");
  }
  auto entry = reinterpret_cast<benchd_plugin_entry_fn>(symbol);
  const benchd_plugin_descriptor* descriptor = entry();
  LoadedPlugin plugin;
  plugin.info = validateDescriptor(where, descriptor);
  plugin.path = canonical;
  plugin.descriptor = descriptor;
  return plugin;
}

}  // namespace benchd::plugin_host
