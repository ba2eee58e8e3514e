#pragma once
// The plugin catalog: every approach plugin benchd can see, vetted out of process.
//
// Each `*.so` of each folder (not recursive) is inspected by `benchd-worker --inspect FILE`, a
// child process that loads and checks it exactly as it would for serving
// (plugin_host::loadPlugin) and prints one JSON line. benchd itself never dlopens a plugin: a
// library that crashes or hangs in its constructors costs one child process, and is reported
// as a rejected plugin with the reason.
//
// Outcomes of one inspection:
//   exit 0 with the plugin line  -> accepted (unless an earlier folder already has the name)
//   exit 3                       -> rejected, reason = the worker's one-line error
//   killed by a signal           -> rejected, "crashed while loading (signal 11, SIGSEGV)"
//   still running at the timeout -> killed, rejected, "did not answer within 10 s"
//   anything else                -> rejected, the exit status and the worker's last stderr line
//
// Order is deterministic: folders in search order, files by name within a folder. A plugin
// name already provided by an earlier file is rejected, naming that file: the first folder in
// the search order wins, so a --plugin-dir folder can override a built-in plugin.

#include <benchd/runner/plugin_folders.hpp>

#include <chrono>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::runner {

/// An accepted plugin, as its descriptor describes itself.
struct PluginDescription {
  std::string name;  ///< also the first path segment of its endpoints
  std::string version;
  std::string description;
  std::string concurrency_model;  ///< "os-threads", "green-threads", "callbacks", ...
  std::string io_stack;
  std::string abi;             ///< "1.0": the ABI version it was built for
  std::filesystem::path path;  ///< the file in its folder, as listed (not resolved)
  /// The server profiles it implements itself (e.g. "no-keep-alive", "postgres"); the core's
  /// "no-cache" and "read-write" are everyone's and not listed.
  std::vector<std::string> profiles;
  /// The contract exceptions it declares (plugin_host::kContractExceptionNames), usually none.
  std::vector<std::string> contract_exceptions;

  /// Whether a row with `profile` can run on it.
  [[nodiscard]] bool implementsProfile(std::string_view profile) const;
};

/// A `.so` that will not be used.
struct RejectedPlugin {
  std::filesystem::path path;
  /// The descriptor's name when the inspection got that far (duplicates), else the file name
  /// without ".so", so `--approach NAME` can point at the reason.
  std::string name;
  std::string reason;  ///< one line for the user
};

/// One folder of the search and what happened to it.
struct SearchedFolder {
  PluginFolder folder;
  bool searched = false;  ///< false: skipped, see note
  std::string note;       ///< why it was skipped ("no such folder", "listed earlier ...")
};

/// The result of inspectPlugins. Plain data; formatters (`benchd plugins`, the API) render it.
struct PluginCatalog {
  std::vector<SearchedFolder> folders;
  std::filesystem::path worker_path;        ///< the benchd-worker that inspected them
  std::vector<PluginDescription> accepted;  ///< search order; names are unique
  std::vector<RejectedPlugin> rejected;     ///< search order

  /// The accepted plugin called `name`, or nullptr.
  [[nodiscard]] const PluginDescription* findAccepted(std::string_view name) const;
  /// The first rejected file whose name() is `name`, or nullptr.
  [[nodiscard]] const RejectedPlugin* findRejected(std::string_view name) const;
};

struct InspectOptions {
  /// How long one inspection may take: loading a plugin takes milliseconds, so this only
  /// bounds a plugin that hangs in its constructors.
  std::chrono::milliseconds timeout{10'000};
  /// Inspections run at the same time. Each is a short process; a few in parallel keep the
  /// total bounded by about one timeout when several plugins hang, without a process per file.
  unsigned parallel = 4;
};

/// The search could not be made: an explicit --plugin-dir folder that is missing or not a
/// folder, or a benchd-worker that cannot be run. what() names the path and what to do.
class PluginSearchError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Lists and inspects every `*.so` in `folders` with `worker_path --inspect`. A folder that
/// does not exist or cannot be listed is skipped with a note, unless it came from
/// --plugin-dir (PluginSearchError). The same folder listed twice is searched once. Rejected
/// plugins are results, not errors. Blocks for at most about one timeout per `parallel`
/// plugins. Call it from a thread that outlives the inspections (see child_process.hpp).
PluginCatalog inspectPlugins(const std::vector<PluginFolder>& folders,
                             const std::filesystem::path& worker_path,
                             const InspectOptions& options = {});

/// One plugin file inspected as inspectPlugins inspects each of a folder's: exactly one of
/// `accepted` and `rejected` is set. Throws PluginSearchError when benchd-worker cannot be run.
/// For `benchd verify-plugin`, which checks a file named on its command line.
struct InspectedFile {
  std::optional<PluginDescription> accepted;
  std::optional<RejectedPlugin> rejected;
};
InspectedFile inspectPluginFile(const std::filesystem::path& file,
                                const std::filesystem::path& worker_path,
                                const InspectOptions& options = {});

/// An approach name that cannot be run: unknown, or rejected; or no plugin accepted at all.
/// what() names it, gives the rejection reason if any, and lists the available approaches, in
/// no front end's words: each front end adds where its user sees more (`benchd plugins`, GET
/// /api/v1/approaches) and how plugin folders are added there.
class UnknownApproachError : public std::runtime_error {
 public:
  UnknownApproachError(const std::string& what, bool none_accepted)
      : std::runtime_error(what), none_accepted_(none_accepted) {}

  /// True when no plugin at all was accepted (the folders, not the name, are the problem).
  [[nodiscard]] bool noneAccepted() const noexcept { return none_accepted_; }

 private:
  bool none_accepted_;
};

/// The approaches a run uses: every accepted plugin in name order when `requested` is empty,
/// else the requested ones in the order given (repeats dropped). Throws UnknownApproachError
/// for a name that is not accepted, and when nothing at all was accepted (naming the folders
/// searched), since a run without approaches has nothing to measure.
std::vector<PluginDescription> resolveApproaches(const PluginCatalog& catalog,
                                                 const std::vector<std::string>& requested);

}  // namespace benchd::runner
