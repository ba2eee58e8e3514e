#include <benchd/runner/plugin_folders.hpp>

#include <cstdlib>
#include <stdexcept>

namespace benchd::runner {

namespace fs = std::filesystem;

namespace {

/// The CMake build folder: BENCHD_BUILD_PLUGIN_DIR is "<build>/plugins".
fs::path buildFolder() {
  std::error_code ignored;
  const fs::path plugins(BENCHD_BUILD_PLUGIN_DIR);
  return fs::weakly_canonical(plugins.parent_path(), ignored);
}

/// True when `path` is `folder` or lies below it, compared by whole path components.
bool isInside(const fs::path& path, const fs::path& folder) {
  if (folder.empty() || path.empty())
    return false;
  const fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

std::optional<std::string_view> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr)
    return std::nullopt;
  return std::string_view(value);
}

}  // namespace

std::string_view originName(FolderOrigin origin) {
  switch (origin) {
    case FolderOrigin::kPluginDirOption:
      return "--plugin-dir";
    case FolderOrigin::kEnvironment:
      return "$BENCHD_PLUGIN_PATH";
    case FolderOrigin::kLocal:
      return "local";
    case FolderOrigin::kBuiltIn:
      return "built-in";
  }
  return "unknown";
}

Installation installationFor(const fs::path& executable) {
  std::error_code ignored;
  const fs::path resolved = fs::weakly_canonical(executable, ignored);
  Installation installation;
  installation.build_tree = isInside(resolved.empty() ? executable : resolved, buildFolder());
  if (installation.build_tree) {
    installation.plugin_dir = BENCHD_BUILD_PLUGIN_DIR;
    installation.worker_path = BENCHD_BUILD_WORKER_PATH;
    installation.report_path = BENCHD_BUILD_REPORT_PATH;
    installation.scenarios_dir = BENCHD_SOURCE_SCENARIOS_DIR;
  } else {
    // The install layout relative to <prefix>/bin, fixed at configure time.
    const fs::path bin = (resolved.empty() ? executable : resolved).parent_path();
    installation.plugin_dir = (bin / BENCHD_BIN_TO_PLUGIN_DIR).lexically_normal();
    installation.local_plugin_dir = BENCHD_LOCAL_PLUGIN_DIR;
    installation.worker_path = (bin / BENCHD_BIN_TO_WORKER).lexically_normal();
    installation.report_path = (bin / BENCHD_BIN_TO_REPORT).lexically_normal();
    installation.scenarios_dir = (bin / BENCHD_BIN_TO_SCENARIOS_DIR).lexically_normal();
  }
  return installation;
}

fs::path currentExecutable() {
  std::error_code error;
  fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error) {
    throw std::runtime_error("cannot find this program's own path from /proc/self/exe: " +
                             error.message() + " (is /proc mounted?)");
  }
  return executable;
}

Installation currentInstallation() {
  return installationFor(currentExecutable());
}

std::vector<PluginFolder> pluginFolders(const std::vector<fs::path>& plugin_dirs,
                                        std::optional<std::string_view> plugin_path_variable,
                                        const Installation& installation) {
  std::vector<PluginFolder> folders;
  // + the local and built-in folders; entries from $BENCHD_PLUGIN_PATH may grow it further.
  folders.reserve(plugin_dirs.size() + 2);
  for (const fs::path& dir : plugin_dirs)
    folders.push_back({dir, FolderOrigin::kPluginDirOption});
  if (plugin_path_variable) {
    const std::string_view text = *plugin_path_variable;
    for (std::size_t start = 0;;) {
      const std::size_t colon = text.find(':', start);
      const std::string_view entry = text.substr(start, colon - start);  // npos: to the end
      if (!entry.empty())
        folders.push_back({fs::path(entry), FolderOrigin::kEnvironment});
      if (colon == std::string_view::npos)
        break;
      start = colon + 1;
    }
  }
  if (!installation.local_plugin_dir.empty())
    folders.push_back({installation.local_plugin_dir, FolderOrigin::kLocal});
  folders.push_back({installation.plugin_dir, FolderOrigin::kBuiltIn});
  return folders;
}

std::vector<PluginFolder> pluginFolders(const std::vector<fs::path>& plugin_dirs) {
  return pluginFolders(plugin_dirs, variable("BENCHD_PLUGIN_PATH"), currentInstallation());
}

fs::path workerPath(std::optional<std::string_view> worker_variable,
                    const Installation& installation) {
  if (worker_variable && !worker_variable->empty())
    return {*worker_variable};
  return installation.worker_path;
}

fs::path workerPath() {
  return workerPath(variable("BENCHD_WORKER"), currentInstallation());
}

fs::path reportPath(std::optional<std::string_view> report_variable,
                    const Installation& installation) {
  if (report_variable && !report_variable->empty())
    return {*report_variable};
  return installation.report_path;
}

fs::path reportPath() {
  return reportPath(variable("BENCHD_REPORT"), currentInstallation());
}

}  // namespace benchd::runner
