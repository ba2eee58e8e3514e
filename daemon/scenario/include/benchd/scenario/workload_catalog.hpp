#pragma once

#include <benchd/scenario/workload.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::scenario {

/// "get-movies" for "get-movies.js" or "get-movies": the original names k6 scripts, benchd names
/// workload files, and both spellings mean the same workload.
std::string_view workloadNameOf(std::string_view k6_config);

/// Asked for a workload the catalog does not have. what() lists the known names.
class UnknownWorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The workloads a scenario file may name, by name. Immutable once built, so it may be shared
/// between threads.
class WorkloadCatalog {
 public:
  /// Loads every *.json file of `workloads_dir` (not recursive). Bodies are resolved against
  /// the directory's parent (the scenarios directory). Throws WorkloadFileError for a missing
  /// directory or the first file that does not load; an empty directory gives an empty catalog.
  static WorkloadCatalog loadDirectory(const std::filesystem::path& workloads_dir);

  WorkloadCatalog() = default;
  /// Throws std::invalid_argument when two workloads have the same name.
  explicit WorkloadCatalog(std::vector<Workload> workloads);

  /// The workload named `name` ("get-movies" or "get-movies.js"), or nullptr.
  [[nodiscard]] const Workload* find(std::string_view name) const;

  /// Like find, but throws UnknownWorkloadError listing the known names.
  [[nodiscard]] const Workload& get(std::string_view name) const;

  /// Sorted names.
  [[nodiscard]] std::vector<std::string> names() const;

  /// "a, b, c" (sorted), or "none" for an empty catalog; for error messages.
  [[nodiscard]] std::string describeNames() const;

 private:
  std::map<std::string, Workload, std::less<>> workloads_;
};

}  // namespace benchd::scenario
