#include <benchd/common/child_process.hpp>
#include <benchd/microservice/service_profile.hpp>
#include <benchd/runner/plugin_catalog.hpp>
#include <benchd/worker/worker_protocol.hpp>

#include <rapidjson/document.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <set>
#include <span>

namespace benchd::runner {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

/// How long a child whose output has closed may take to exit.
constexpr std::chrono::milliseconds kExitGrace{1000};

struct Candidate {
  fs::path path;
  std::optional<PluginDescription> description;  ///< set when accepted by the worker
  std::string reason;                            ///< set when refused
};

std::string durationText(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0)
    return std::to_string(duration.count() / 1000) + " s";
  return std::to_string(duration.count()) + " ms";
}

/// The worker's error line without its prefix; the last non-empty line when none has it.
std::string workerErrorLine(const common::ChildProcess& child) {
  const std::vector<std::string> tail = child.stderrTail(20);
  const auto line = std::find_if(tail.rbegin(), tail.rend(), [](const std::string& text) {
    return text.starts_with(worker::kErrorPrefix);
  });
  if (line != tail.rend())
    return line->substr(worker::kErrorPrefix.size());
  return tail.empty() ? std::string("(no message on stderr)") : tail.back();
}

std::string stringMember(const rapidjson::Value& object, const char* name) {
  const auto member = object.FindMember(name);
  if (member == object.MemberEnd() || !member->value.IsString())
    return {};
  return {member->value.GetString(), member->value.GetStringLength()};
}

/// The description in the worker's `{"event":"plugin",...}` line, if `line` is one.
std::optional<PluginDescription> parsePluginLine(const std::string& line, const fs::path& path) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
      line.c_str(), line.size());
  if (document.HasParseError() || !document.IsObject() ||
      stringMember(document, "event") != "plugin") {
    return std::nullopt;
  }
  PluginDescription description;
  description.name = stringMember(document, "name");
  description.version = stringMember(document, "version");
  description.description = stringMember(document, "description");
  description.concurrency_model = stringMember(document, "concurrencyModel");
  description.io_stack = stringMember(document, "ioStack");
  description.abi = stringMember(document, "abi");
  description.path = path;
  const auto names = [&document](const char* member, std::vector<std::string>& into) {
    const auto list = document.FindMember(member);
    if (list == document.MemberEnd() || !list->value.IsArray())
      return;
    for (const rapidjson::Value& name : list->value.GetArray()) {
      if (name.IsString())
        into.emplace_back(name.GetString(), name.GetStringLength());
    }
  };
  names("profiles", description.profiles);
  names("contractExceptions", description.contract_exceptions);
  if (description.name.empty())
    return std::nullopt;
  return description;
}

/// Reads a finished (or timed-out) inspection into `candidate`.
void conclude(Candidate& candidate, common::ChildProcess& child, Clock::time_point deadline,
              std::chrono::milliseconds timeout) {
  const auto left = [deadline] {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  };
  std::optional<common::ExitStatus> status;
  if (child.drainOutput(left())) {
    // Its output is closed, so it is exiting: a child read after the batch's deadline (because
    // an earlier one hung) still gets a moment to be reaped instead of counting as hung.
    status = child.waitExit(std::max(left(), kExitGrace));
  }
  if (!status) {
    child.kill();
    candidate.reason = "did not answer within " + durationText(timeout) +
                       " (a constructor in the library may hang); the inspection was killed";
    return;
  }
  if (status->signalled()) {
    candidate.reason = "crashed while loading (signal " + std::to_string(status->signal_number) +
                       ", " + common::signalName(status->signal_number) + ")";
    return;
  }
  if (status->exit_code == worker::kExitPluginRefused) {
    candidate.reason = workerErrorLine(child);
    return;
  }
  const std::string output = child.takeStdout();
  if (status->exit_code == 0) {
    std::size_t start = 0;
    while (start < output.size()) {
      const std::size_t end = std::min(output.find('\n', start), output.size());
      if (auto description = parsePluginLine(output.substr(start, end - start), candidate.path)) {
        candidate.description = std::move(description);
        return;
      }
      start = end + 1;
    }
    candidate.reason =
        "benchd-worker --inspect exited 0 but printed no {\"event\":\"plugin\"} line (is "
        "benchd-worker from the same benchd version?)";
    return;
  }
  candidate.reason =
      "benchd-worker --inspect failed (" + status->describe() + "): " + workerErrorLine(child);
}

/// Inspects `batch` in parallel: all start, then each is read against one shared deadline.
void inspectBatch(std::span<Candidate> batch, const fs::path& worker_path,
                  const InspectOptions& options) {
  std::vector<std::optional<common::ChildProcess>> children;
  children.reserve(batch.size());
  for (Candidate& candidate : batch) {
    try {
      children.emplace_back(common::ChildProcess(
          worker_path, {"--inspect", candidate.path.string()}, common::SpawnOptions{}));
    } catch (const std::runtime_error& error) {
      throw PluginSearchError(std::string("cannot inspect plugins: ") + error.what());
    }
  }
  const auto deadline = Clock::now() + options.timeout;
  for (std::size_t index = 0; index < batch.size(); ++index)
    conclude(batch[index], *children[index], deadline, options.timeout);
}

/// The `*.so` files directly in `folder`, sorted by file name. Throws std::system_error when
/// the folder cannot be listed.
std::vector<fs::path> listPluginFiles(const fs::path& folder) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    std::error_code ignored;
    if (entry.path().extension() == ".so" && !entry.is_directory(ignored))
      files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  return files;
}

/// Why `folder` cannot be searched, or nullopt when it can.
std::optional<std::string> folderProblem(const fs::path& folder) {
  std::error_code error;
  const fs::file_status status = fs::status(folder, error);
  if (status.type() == fs::file_type::not_found)
    return "no such folder";
  if (error)
    return error.message();
  if (status.type() != fs::file_type::directory)
    return "not a folder";
  return std::nullopt;
}

[[noreturn]] void explicitFolderError(const fs::path& folder, const std::string& problem) {
  throw PluginSearchError("--plugin-dir " + folder.string() + ": " + problem +
                          " (expected a folder of approach plugin .so files)");
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::vector<std::string> availableNames(const PluginCatalog& catalog) {
  std::vector<std::string> names;
  for (const PluginDescription& plugin : catalog.accepted)
    names.push_back(plugin.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

bool PluginDescription::implementsProfile(std::string_view profile) const {
  return microservice::isCoreProfile(profile) ||
         std::find(profiles.begin(), profiles.end(), profile) != profiles.end();
}

const PluginDescription* PluginCatalog::findAccepted(std::string_view name) const {
  const auto found = std::find_if(accepted.begin(), accepted.end(),
                                  [name](const PluginDescription& p) { return p.name == name; });
  return found == accepted.end() ? nullptr : &*found;
}

const RejectedPlugin* PluginCatalog::findRejected(std::string_view name) const {
  const auto found = std::find_if(rejected.begin(), rejected.end(),
                                  [name](const RejectedPlugin& p) { return p.name == name; });
  return found == rejected.end() ? nullptr : &*found;
}

PluginCatalog inspectPlugins(const std::vector<PluginFolder>& folders, const fs::path& worker_path,
                             const InspectOptions& options) {
  if (::access(worker_path.c_str(), X_OK) != 0) {
    throw PluginSearchError("cannot inspect plugins: benchd-worker " + worker_path.string() + ": " +
                            std::strerror(errno) +
                            " (build or install benchd-worker, or set $BENCHD_WORKER to it)");
  }
  PluginCatalog catalog;
  catalog.worker_path = worker_path;

  std::vector<Candidate> candidates;
  std::set<fs::path> seen_folders;
  for (const PluginFolder& folder : folders) {
    SearchedFolder& searched = catalog.folders.emplace_back(SearchedFolder{folder, false, {}});
    const bool is_explicit = folder.origin == FolderOrigin::kPluginDirOption;
    if (const auto problem = folderProblem(folder.path)) {
      if (is_explicit)
        explicitFolderError(folder.path, *problem);
      searched.note = *problem;
      continue;
    }
    std::error_code ignored;
    const fs::path identity = fs::canonical(folder.path, ignored);
    if (!seen_folders.insert(identity.empty() ? folder.path : identity).second) {
      searched.note = "already searched (listed earlier)";
      continue;
    }
    try {
      for (fs::path& file : listPluginFiles(folder.path))
        candidates.push_back({std::move(file), std::nullopt, {}});
    } catch (const fs::filesystem_error& error) {
      const std::string problem = "cannot be listed: " + error.code().message();
      if (is_explicit)
        explicitFolderError(folder.path, problem);
      searched.note = problem;
      continue;
    }
    searched.searched = true;
  }

  const std::size_t batch_size = std::max(1U, options.parallel);
  for (std::size_t start = 0; start < candidates.size(); start += batch_size) {
    const std::size_t count = std::min(batch_size, candidates.size() - start);
    inspectBatch(std::span<Candidate>(candidates).subspan(start, count), worker_path, options);
  }

  for (Candidate& candidate : candidates) {
    if (!candidate.description) {
      catalog.rejected.push_back(
          {candidate.path, candidate.path.stem().string(), std::move(candidate.reason)});
      continue;
    }
    if (const PluginDescription* first = catalog.findAccepted(candidate.description->name)) {
      catalog.rejected.push_back({candidate.path, candidate.description->name,
                                  "plugin name '" + candidate.description->name +
                                      "' is already provided by " + first->path.string() +
                                      ", found earlier in the search order (the first one wins)"});
      continue;
    }
    catalog.accepted.push_back(std::move(*candidate.description));
  }
  return catalog;
}

InspectedFile inspectPluginFile(const fs::path& file, const fs::path& worker_path,
                                const InspectOptions& options) {
  if (::access(worker_path.c_str(), X_OK) != 0) {
    throw PluginSearchError("cannot inspect plugins: benchd-worker " + worker_path.string() + ": " +
                            std::strerror(errno) +
                            " (build or install benchd-worker, or set $BENCHD_WORKER to it)");
  }
  std::vector<Candidate> candidates{{file, std::nullopt, {}}};
  inspectBatch(candidates, worker_path, options);
  InspectedFile inspected;
  if (candidates.front().description) {
    inspected.accepted = std::move(candidates.front().description);
  } else {
    inspected.rejected =
        RejectedPlugin{file, file.stem().string(), std::move(candidates.front().reason)};
  }
  return inspected;
}

std::vector<PluginDescription> resolveApproaches(const PluginCatalog& catalog,
                                                 const std::vector<std::string>& requested) {
  const std::vector<std::string> available = availableNames(catalog);
  if (available.empty()) {
    std::vector<std::string> searched;
    for (const SearchedFolder& folder : catalog.folders)
      searched.push_back(folder.folder.path.string());
    throw UnknownApproachError(
        "no approach plugin was accepted in " +
            (searched.empty() ? "(no folder)" : joined(searched)) +
            (catalog.rejected.empty()
                 ? std::string()
                 : "; " + std::to_string(catalog.rejected.size()) + " rejected"),
        true);
  }
  std::vector<PluginDescription> approaches;
  if (requested.empty()) {
    for (const std::string& name : available)
      approaches.push_back(*catalog.findAccepted(name));
    return approaches;
  }
  for (const std::string& name : requested) {
    const PluginDescription* plugin = catalog.findAccepted(name);
    if (plugin == nullptr) {
      const RejectedPlugin* rejected = catalog.findRejected(name);
      std::string message = rejected != nullptr
                                ? "approach '" + name + "' (" + rejected->path.string() +
                                      ") was rejected: " + rejected->reason
                                : "unknown approach '" + name + "'";
      message += "; available approaches: " + joined(available);
      throw UnknownApproachError(message, false);
    }
    const bool repeated =
        std::any_of(approaches.begin(), approaches.end(),
                    [&](const PluginDescription& chosen) { return chosen.name == name; });
    if (!repeated)
      approaches.push_back(*plugin);
  }
  return approaches;
}

}  // namespace benchd::runner
