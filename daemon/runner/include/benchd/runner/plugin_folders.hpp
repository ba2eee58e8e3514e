#pragma once
// Where benchd looks for approach plugins and for benchd-worker.
//
// Plugin folders, in search order (the first folder providing a plugin name wins):
//   1. the folders given with --plugin-dir, in the order given;
//   2. the folders of $BENCHD_PLUGIN_PATH (colon-separated, empty entries ignored);
//   3. when benchd runs installed, the local folder (/usr/local/lib/benchd/plugins, the CMake
//      setting BENCHD_LOCAL_PLUGIN_DIR): where `cmake --install` of an out-of-tree plugin puts
//      it, so a plugin an administrator installs there needs no setting; a missing one is
//      skipped;
//   4. the built-in folder: the installed one (<libdir>/benchd/plugins) when benchd runs
//      installed, the build tree's (<build>/plugins) when it runs from the build tree.
// benchd-worker: $BENCHD_WORKER when set and not empty, else the installed
// (<libexecdir>/benchd/benchd-worker) or build-tree (<build>/bin/benchd-worker) one.
// benchd-report (the PNG charts; optional, it needs Qt): $BENCHD_REPORT when set and not
// empty, else the installed (<libexecdir>/benchd/benchd-report) or build-tree
// (<build>/bin/benchd-report) one.
// Scenarios: the installed <datadir>/benchd/scenarios, or the source tree's scenarios/.
//
// Installed locations are found relative to the executable (<prefix>/bin/benchd ->
// <prefix>/lib/benchd/plugins, ...), so an install under any prefix (/usr from the .deb, a
// `cmake --install --prefix` folder) finds its own plugins, worker and scenarios.
//
// "Runs from the build tree" means: the running executable (/proc/self/exe) lies inside the
// CMake build folder this library was compiled in. Anything else, including a copy of the
// executable elsewhere, counts as installed. Deciding by the executable's location rather than
// by which folder exists keeps a developer's build from silently loading the plugins of an
// installed package (and an installed daemon from loading a stale build tree's).
//
// These functions only compute paths; nothing here touches the file system except
// currentExecutable(). inspectPlugins (plugin_catalog.hpp) checks the folders when it lists
// them.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner {

/// Why a folder is searched. Reported to the user and decides how a missing folder is
/// treated (only a --plugin-dir folder is an error).
enum class FolderOrigin {
  kPluginDirOption,  ///< --plugin-dir
  kEnvironment,      ///< $BENCHD_PLUGIN_PATH
  kLocal,            ///< the local folder of an installed benchd (/usr/local/lib/...)
  kBuiltIn,          ///< the installed or build-tree plugin folder
};

/// "--plugin-dir", "$BENCHD_PLUGIN_PATH", "local" or "built-in".
std::string_view originName(FolderOrigin origin);

struct PluginFolder {
  std::filesystem::path path;
  FolderOrigin origin = FolderOrigin::kBuiltIn;

  friend bool operator==(const PluginFolder&, const PluginFolder&) = default;
};

/// The built-in locations for one way of running benchd.
struct Installation {
  bool build_tree = false;  ///< running from the build tree rather than installed
  std::filesystem::path plugin_dir;
  std::filesystem::path worker_path;
  std::filesystem::path report_path;    ///< benchd-report; may not exist (built without Qt)
  std::filesystem::path scenarios_dir;  ///< scenario files, workloads/ and movies.json
  /// Installed only: the local plugin folder (empty in the build tree, or when configured
  /// without one).
  std::filesystem::path local_plugin_dir;
};

/// The build-tree locations when `executable` lies inside the build folder, else the installed
/// ones. Pure, for tests; currentInstallation() applies it to this process.
Installation installationFor(const std::filesystem::path& executable);

/// The running executable's path (/proc/self/exe). Throws std::runtime_error when unreadable.
std::filesystem::path currentExecutable();

/// installationFor(currentExecutable()).
Installation currentInstallation();

/// The folders in search order from explicit --plugin-dir folders, the value of
/// $BENCHD_PLUGIN_PATH (nullopt when unset) and the built-in folder of `installation`.
std::vector<PluginFolder> pluginFolders(const std::vector<std::filesystem::path>& plugin_dirs,
                                        std::optional<std::string_view> plugin_path_variable,
                                        const Installation& installation);

/// The same, reading $BENCHD_PLUGIN_PATH and the current installation.
std::vector<PluginFolder> pluginFolders(const std::vector<std::filesystem::path>& plugin_dirs);

/// benchd-worker's path from the value of $BENCHD_WORKER (nullopt or empty: not set) and
/// `installation`.
std::filesystem::path workerPath(std::optional<std::string_view> worker_variable,
                                 const Installation& installation);

/// The same, reading $BENCHD_WORKER and the current installation.
std::filesystem::path workerPath();

/// benchd-report's path from the value of $BENCHD_REPORT (nullopt or empty: not set) and
/// `installation`. The file may not exist; then no charts are rendered.
std::filesystem::path reportPath(std::optional<std::string_view> report_variable,
                                 const Installation& installation);
/// The same, reading $BENCHD_REPORT and the current installation.
std::filesystem::path reportPath();

}  // namespace benchd::runner
