#pragma once

#include <benchd/store/result_store.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <string>

namespace benchd::runner {

/// How long benchd-report may take for a run of `results` results: generous (a chart renders
/// in well under a second), so only a hung renderer hits it.
std::chrono::milliseconds chartRenderingTimeout(std::size_t results);

/// Runs `tool --store STORE --run RUN --out DIR` in a child process (Qt stays out of this
/// process) and waits for it, at most chartRenderingTimeout(results). Returns one line for the
/// user: what was rendered, or why nothing was ("benchd-report not installed", its exit and
/// last error line). Never throws: a run's results do not depend on its pictures.
std::string renderCharts(const std::filesystem::path& tool, const std::filesystem::path& store,
                         store::RunId run, const std::filesystem::path& out_dir,
                         std::size_t results);

}  // namespace benchd::runner
