#include "chart_rendering.hpp"

#include <benchd/common/child_process.hpp>

#include <unistd.h>

namespace benchd::runner {
namespace {

/// The last non-empty line of `text`, trimmed of its line end.
std::string lastLine(const std::string& text) {
  std::size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) {
    return {};
  }
  const std::size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

}  // namespace

std::chrono::milliseconds chartRenderingTimeout(std::size_t results) {
  return std::chrono::seconds(60) + std::chrono::seconds(10) * results;
}

std::string renderCharts(const std::filesystem::path& tool, const std::filesystem::path& store,
                         store::RunId run, const std::filesystem::path& out_dir,
                         std::size_t results) {
  std::error_code error;
  if (tool.empty() || !std::filesystem::is_regular_file(tool, error) ||
      ::access(tool.c_str(), X_OK) != 0) {
    return "charts: benchd-report not found" +
           (tool.empty() ? std::string() : " at " + tool.string()) +
           " (it is built where Qt 6 is installed); results.md has no images";
  }
  try {
    const common::CompletedProcess done = common::runToCompletion(
        tool, {"--store", store.string(), "--run", std::to_string(run), "--out", out_dir.string()},
        chartRenderingTimeout(results),
        common::SpawnOptions{.cpu_affinity = {},
                             .parent_death_signal = SIGKILL,
                             .environment = {{"QT_QPA_PLATFORM", "offscreen"}},
                             .own_process_group = true});
    if (done.timed_out) {
      return "charts: " + tool.string() + " did not finish within " +
             std::to_string(chartRenderingTimeout(results).count() / 1000) +
             " s and was stopped; results.md shows the images it wrote";
    }
    if (!done.status.succeeded()) {
      return "charts: " + tool.string() + " failed (" + done.status.describe() +
             "): " + lastLine(done.stderr_text);
    }
    return lastLine(done.stderr_text);
  } catch (const std::exception& failure) {
    return "charts: cannot run " + tool.string() + ": " + failure.what();
  }
}

}  // namespace benchd::runner
