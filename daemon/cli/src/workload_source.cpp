#include "workload_source.hpp"

#include <benchd/runner/plugin_folders.hpp>
#include <benchd/scenario/workload_catalog.hpp>
#include <benchd/scenario/workload_file.hpp>

#include <cstdlib>

namespace benchd::cli {

std::filesystem::path scenariosDirectory(const std::optional<std::string>& explicit_dir) {
  if (explicit_dir) {
    return *explicit_dir;
  }
  if (const char* from_environment = std::getenv("BENCHD_SCENARIOS_DIR");
      from_environment != nullptr && *from_environment != '\0') {
    return from_environment;
  }
  return runner::currentInstallation().scenarios_dir;
}

scenario::Workload loadWorkloadFor(const std::string& name_or_file,
                                   const std::filesystem::path& scenarios_dir) {
  const std::filesystem::path as_path(name_or_file);
  if (as_path.extension() == ".json" || name_or_file.find('/') != std::string::npos) {
    const std::filesystem::path folder = as_path.parent_path();
    const std::filesystem::path body_dir =
        folder.filename() == "workloads" ? folder.parent_path() : folder;
    return scenario::loadWorkloadFile(as_path, body_dir.empty() ? "." : body_dir);
  }
  const scenario::WorkloadCatalog catalog =
      scenario::WorkloadCatalog::loadDirectory(scenarios_dir / "workloads");
  return catalog.get(name_or_file);
}

}  // namespace benchd::cli
