#pragma once

#include <benchd/scenario/workload.hpp>

#include <filesystem>
#include <optional>
#include <string>

namespace benchd::cli {

/// The scenarios directory named workloads and scenario files come from: `explicit_dir` when
/// given, else $BENCHD_SCENARIOS_DIR, else the built-in one (the installed folder for an
/// installed benchd, the source tree's for a build; see runner/plugin_folders.hpp).
std::filesystem::path scenariosDirectory(const std::optional<std::string>& explicit_dir);

/// A workload given as a name ("get-time", "get-time.js") from `scenarios_dir`/workloads, or as
/// a path to a .json file (its body files resolve against the scenarios directory when the file
/// sits in a "workloads" folder, else against the file's own folder). Throws
/// scenario::WorkloadFileError or scenario::UnknownWorkloadError.
scenario::Workload loadWorkloadFor(const std::string& name_or_file,
                                   const std::filesystem::path& scenarios_dir);

}  // namespace benchd::cli
