#include <benchd/plugin_host/plugin_file_check.hpp>
#include <benchd/plugin_host/plugin_load_error.hpp>
#include <benchd/plugin_host/plugin_loader.hpp>

#include <dlfcn.h>

#include <cstddef>
#include <string>

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

/// The part of the descriptor this host needs; a plugin built for ABI 1.0 has at least this.
constexpr std::size_t kMinimumDescriptorSize =
    offsetof(benchd_plugin_descriptor, destroy) + sizeof(benchd_plugin_descriptor::destroy);

void validateDescriptor(const std::string& where, const benchd_plugin_descriptor* descriptor) {
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
  const std::string name = orEmpty(descriptor->name);
  if (!isValidName(name)) {
    throw PluginLoadError(where + ": plugin name '" + name +
                          "' must be 1 to 64 characters of a-z, 0-9 and '-'");
  }
  if (concurrencyModelName(descriptor->concurrency_model).empty()) {
    throw PluginLoadError(where + ": unknown concurrency model " +
                          std::to_string(static_cast<int>(descriptor->concurrency_model)));
  }
  if (descriptor->create == nullptr || descriptor->start == nullptr ||
      descriptor->bound_port == nullptr || descriptor->stats == nullptr ||
      descriptor->stop == nullptr || descriptor->destroy == nullptr) {
    throw PluginLoadError(where + ": descriptor lacks a lifecycle function");
  }
}

}  // namespace

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
  const std::filesystem::path canonical = checkPluginFile(path);
  const std::string where = "plugin " + path.string();

  // Never dlclosed: see LoadedPlugin.
  void* library = ::dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    throw PluginLoadError(where + ": cannot be loaded: " + orEmpty(::dlerror()));
  }
  ::dlerror();
  void* symbol = ::dlsym(library, BENCHD_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    throw PluginLoadError(where + ": no entry symbol " BENCHD_PLUGIN_ENTRY_SYMBOL
                                  " (is it a benchd plugin, built with BENCHD_PLUGIN_EXPORT?)");
  }
  auto entry = reinterpret_cast<benchd_plugin_entry_fn>(symbol);
  const benchd_plugin_descriptor* descriptor = entry();
  validateDescriptor(where, descriptor);

  LoadedPlugin plugin;
  plugin.path = canonical;
  plugin.descriptor = descriptor;
  plugin.info.name = descriptor->name;
  plugin.info.version = orEmpty(descriptor->version);
  plugin.info.description = orEmpty(descriptor->description);
  plugin.info.concurrency_model = concurrencyModelName(descriptor->concurrency_model);
  plugin.info.io_stack = orEmpty(descriptor->io_stack);
  plugin.info.abi_major = descriptor->abi_major;
  plugin.info.abi_minor = descriptor->abi_minor;
  return plugin;
}

}  // namespace benchd::plugin_host
