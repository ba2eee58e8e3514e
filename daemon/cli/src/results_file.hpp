#pragma once

#include <filesystem>
#include <string>

namespace benchd::cli {

/// The results file a command argument names: the file itself, or inside a results folder its
/// results-runs.csv (every run of a run made with --repeat) when there is one, else its
/// results.csv. `benchd compare` and `benchd winners` read their arguments this way.
inline std::filesystem::path resultsFileOf(const std::string& argument) {
  std::filesystem::path path(argument);  // not const: returned by move
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    return path;
  }
  const std::filesystem::path runs = path / "results-runs.csv";
  return std::filesystem::exists(runs, error) ? runs : path / "results.csv";
}

}  // namespace benchd::cli
