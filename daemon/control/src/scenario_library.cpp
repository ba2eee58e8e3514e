#include <benchd/control/scenario_library.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>
#include <system_error>

namespace benchd::control {
namespace {

constexpr std::size_t kMaxNameLength = 100;

bool isNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

/// The uploads folder, made on first use, private to this user.
void ensureFolder(const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  std::filesystem::permissions(folder, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::replace);
}

/// Writes `text` to `target` through a temporary file in the same folder, flushed to disk
/// before it is renamed over `target`.
void writeAtomically(const std::filesystem::path& target, std::string_view text) {
  std::string temporary = (target.parent_path() / ".upload-XXXXXX").string();
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) {
    throw std::system_error(errno, std::generic_category(),
                            "cannot create a file in " + target.parent_path().string());
  }
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t now = ::write(fd, text.data() + written, text.size() - written);
    if (now < 0 && errno == EINTR) {
      continue;
    }
    if (now <= 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      throw std::system_error(error, std::generic_category(), "cannot write " + temporary);
    }
    written += static_cast<std::size_t>(now);
  }
  if (::fchmod(fd, 0600) != 0 || ::fsync(fd) != 0 || ::close(fd) != 0 ||
      ::rename(temporary.c_str(), target.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw std::system_error(error, std::generic_category(), "cannot store " + target.string());
  }
}

}  // namespace

std::string_view scenarioSourceName(ScenarioLibrary::Source source) {
  return source == ScenarioLibrary::Source::kUploaded ? "uploaded" : "built-in";
}

ScenarioLibrary::ScenarioLibrary(std::filesystem::path builtin_dir,
                                 std::filesystem::path uploads_dir)
    : builtin_dir_(std::move(builtin_dir)), uploads_dir_(std::move(uploads_dir)) {}

std::optional<std::string> ScenarioLibrary::nameProblem(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) {
    return "expected a file name of 1 to " + std::to_string(kMaxNameLength) + " characters";
  }
  if (!std::all_of(name.begin(), name.end(), isNameCharacter)) {
    return "expected only letters, digits, '.', '_' and '-' in a file name";
  }
  if (name.front() == '.') {
    return "a file name must not start with '.'";
  }
  if (name.size() <= 4 || name.substr(name.size() - 4) != ".csv") {
    return "expected a name ending in '.csv'";
  }
  return std::nullopt;
}

std::vector<ScenarioLibrary::Entry> ScenarioLibrary::list() const {
  std::vector<Entry> entries;
  const auto collect = [&entries](const std::filesystem::path& folder, Source source) {
    std::error_code ignored;
    for (const auto& file : std::filesystem::directory_iterator(folder, ignored)) {
      const std::string name = file.path().filename().string();
      if (!nameProblem(name) && file.is_regular_file(ignored)) {
        entries.push_back({name, source, file.path()});
      }
    }
  };
  collect(builtin_dir_, Source::kBuiltIn);
  collect(uploads_dir_, Source::kUploaded);
  std::sort(entries.begin(), entries.end(), [](const Entry& left, const Entry& right) {
    return left.name != right.name ? left.name < right.name : left.source < right.source;
  });
  return entries;
}

std::optional<ScenarioLibrary::Entry> ScenarioLibrary::find(std::string_view name) const {
  if (nameProblem(name)) {
    return std::nullopt;
  }
  std::error_code ignored;
  for (const auto& [folder, source] :
       {std::pair{builtin_dir_, Source::kBuiltIn}, std::pair{uploads_dir_, Source::kUploaded}}) {
    const std::filesystem::path path = folder / std::string(name);
    if (std::filesystem::is_regular_file(path, ignored)) {
      return Entry{std::string(name), source, path};
    }
  }
  return std::nullopt;
}

std::vector<scenario::ScenarioRow> ScenarioLibrary::rows(const Entry& entry) const {
  const scenario::WorkloadCatalog workloads =
      scenario::WorkloadCatalog::loadDirectory(builtin_dir_ / "workloads");
  return scenario::loadScenarioFile(entry.path, workloads);
}

bool ScenarioLibrary::upload(std::string_view name, std::string_view text) {
  if (const auto problem = nameProblem(name)) {
    throw ScenarioNameError(*problem);
  }
  std::error_code ignored;
  if (std::filesystem::exists(builtin_dir_ / std::string(name), ignored)) {
    throw ScenarioConflictError("'" + std::string(name) +
                                "' is a built-in scenario file; upload it under another name");
  }
  const scenario::WorkloadCatalog workloads =
      scenario::WorkloadCatalog::loadDirectory(builtin_dir_ / "workloads");
  // Throws before anything is written.
  (void)scenario::parseScenarioText(text, name, workloads);
  ensureFolder(uploads_dir_);
  const std::filesystem::path target = uploads_dir_ / std::string(name);
  const bool replaced = std::filesystem::exists(target, ignored);
  writeAtomically(target, text);
  return replaced;
}

bool ScenarioLibrary::remove(std::string_view name) {
  if (const auto problem = nameProblem(name)) {
    throw ScenarioNameError(*problem);
  }
  std::error_code ignored;
  if (std::filesystem::exists(builtin_dir_ / std::string(name), ignored)) {
    throw ScenarioConflictError("'" + std::string(name) +
                                "' is a built-in scenario file; only uploaded ones can be removed");
  }
  return std::filesystem::remove(uploads_dir_ / std::string(name), ignored);
}

}  // namespace benchd::control
