// Rendering the charts is best effort: a missing, failing or silent renderer gives one line
// that says so, never an exception, and the run's results do not depend on it.
#include "chart_rendering.hpp"

#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>

namespace benchd::runner {
namespace {

namespace fs = std::filesystem;
using benchd::testing::TempDir;

fs::path script(const fs::path& dir, const std::string& name, const std::string& body) {
  const fs::path file = dir / name;
  std::ofstream(file) << "#!/bin/sh\n" << body << "\n";
  ::chmod(file.c_str(), 0755);
  return file;
}

TEST(ChartRendering, AMissingRendererIsNamedAndNothingIsThrown) {
  TempDir dir;
  const std::string line =
      renderCharts(dir.path() / "benchd-report", dir.path() / "s.sqlite", 1, dir.path(), 3);
  EXPECT_NE(line.find("benchd-report not found at " + (dir.path() / "benchd-report").string()),
            std::string::npos)
      << line;
  EXPECT_NE(renderCharts({}, dir.path() / "s.sqlite", 1, dir.path(), 3).find("not found"),
            std::string::npos);
}

TEST(ChartRendering, TheRendererGetsTheStoreTheRunAndTheFolderAndItsLastLineIsReported) {
  TempDir dir;
  const fs::path tool = script(dir.path(), "report",
                               "echo \"$@\" > \"$(dirname \"$0\")/arguments\"\n"
                               "echo 'benchd-report: progress' >&2\n"
                               "echo \"benchd-report: $QT_QPA_PLATFORM done\" >&2");
  const std::string line = renderCharts(tool, "/x/s.sqlite", 42, "/x/out", 3);
  EXPECT_EQ(line, "benchd-report: offscreen done");
  std::ifstream arguments(dir.path() / "arguments");
  std::string text;
  std::getline(arguments, text);
  EXPECT_EQ(text, "--store /x/s.sqlite --run 42 --out /x/out");
}

TEST(ChartRendering, AFailingRendererIsReportedWithItsExitAndLastError) {
  TempDir dir;
  const fs::path tool =
      script(dir.path(), "report", "echo 'benchd-report: cannot write' >&2\nexit 1");
  const std::string line = renderCharts(tool, "/x/s.sqlite", 1, "/x/out", 1);
  EXPECT_NE(line.find("failed (exit code 1): benchd-report: cannot write"), std::string::npos)
      << line;
}

TEST(ChartRendering, TheTimeoutGrowsWithTheResults) {
  EXPECT_LT(chartRenderingTimeout(1), chartRenderingTimeout(100));
  EXPECT_GE(chartRenderingTimeout(0), std::chrono::seconds(60));
}

}  // namespace
}  // namespace benchd::runner
