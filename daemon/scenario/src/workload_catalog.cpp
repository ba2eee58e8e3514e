#include <benchd/scenario/workload_catalog.hpp>
#include <benchd/scenario/workload_file.hpp>
#include <benchd/scenario/workload_file_error.hpp>

#include <algorithm>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace benchd::scenario {

std::string_view workloadNameOf(std::string_view k6_config) {
  constexpr std::string_view kScriptSuffix = ".js";
  if (k6_config.size() > kScriptSuffix.size() && k6_config.ends_with(kScriptSuffix)) {
    k6_config.remove_suffix(kScriptSuffix.size());
  }
  return k6_config;
}

WorkloadCatalog WorkloadCatalog::loadDirectory(const std::filesystem::path& workloads_dir) {
  std::filesystem::path dir = workloads_dir;
  if (!dir.has_filename()) {
    dir = dir.parent_path();  // "scenarios/workloads/" names the same directory
  }
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw WorkloadFileError(dir.string() + ": not a directory");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.path().extension() == ".json" && entry.is_regular_file()) {
      files.push_back(dir / entry.path().filename());
    }
  }
  if (error) {
    throw WorkloadFileError(dir.string() + ": cannot list the directory: " + error.message());
  }
  std::sort(files.begin(), files.end());
  const std::filesystem::path body_dir = dir.parent_path();
  std::vector<Workload> workloads;
  workloads.reserve(files.size());
  for (const std::filesystem::path& file : files) {
    workloads.push_back(loadWorkloadFile(file, body_dir));
  }
  return WorkloadCatalog(std::move(workloads));
}

WorkloadCatalog::WorkloadCatalog(std::vector<Workload> workloads) {
  for (Workload& workload : workloads) {
    if (workloads_.contains(workload.name)) {
      throw std::invalid_argument("two workloads are named '" + workload.name + "'");
    }
    std::string name = workload.name;
    workloads_.emplace(std::move(name), std::move(workload));
  }
}

const Workload* WorkloadCatalog::find(std::string_view name) const {
  const auto found = workloads_.find(workloadNameOf(name));
  return found == workloads_.end() ? nullptr : &found->second;
}

const Workload& WorkloadCatalog::get(std::string_view name) const {
  const Workload* workload = find(name);
  if (workload == nullptr) {
    throw UnknownWorkloadError("unknown workload '" + std::string(name) +
                               "' (known: " + describeNames() + ")");
  }
  return *workload;
}

std::vector<std::string> WorkloadCatalog::names() const {
  std::vector<std::string> names;
  names.reserve(workloads_.size());
  for (const auto& entry : workloads_) {
    names.push_back(entry.first);
  }
  return names;
}

std::string WorkloadCatalog::describeNames() const {
  if (workloads_.empty()) {
    return "none";
  }
  std::string text;
  for (const auto& entry : workloads_) {
    text += text.empty() ? "" : ", ";
    text += entry.first;
  }
  return text;
}

}  // namespace benchd::scenario
