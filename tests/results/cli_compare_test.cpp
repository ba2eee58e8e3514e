// `benchd compare` as a process: arguments, folders, the report on stdout or in a file.
#include "build_paths.hpp"
#include "command_runner.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace benchd::results {
namespace {

namespace fs = std::filesystem;
using benchd::testing::CommandResult;
using benchd::testing::runCommand;

const std::string kFixture =
    benchd::testing::sourceDir() + "/tests/results/fixtures/loom-default-results.csv";

CommandResult benchd(const std::vector<std::string>& arguments) {
  return runCommand(benchd::testing::cliPath(), arguments);
}

std::string firstLine(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

/// A fresh folder for one test, removed afterwards.
class CliCompareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    folder_ = fs::temp_directory_path() / (std::string("benchd-cli-compare-") + test->name() + "-" +
                                           std::to_string(::getpid()));
    fs::remove_all(folder_);
    fs::create_directories(folder_);
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = folder_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  fs::path folder_;
};

const std::string kBefore =
    "scenario,approach,requests_per_second_p50,latency_millis_p50\n"
    "s,a,1000,10\n";
const std::string kAfter =
    "scenario,approach,requests_per_second_p50,latency_millis_p50\n"
    "s,a,1100,10.1\n";

TEST_F(CliCompareTest, PrintsTheReportForFilesAndFolders) {
  write("before/results.csv", kBefore);
  const std::string after = write("after.csv", kAfter);
  const CommandResult result = benchd({"compare", (folder_ / "before").string(), after});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.err, "");
  EXPECT_EQ(firstLine(result.out), "# Benchmark Comparison Report");
  EXPECT_NE(result.out.find("| before | " + (folder_ / "before" / "results.csv").string() + " | "),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("| ✅ | s | a | rps_p50 | 1000 | 1100 | 10.00 | 100.00 |"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("| ➖ | s | a | lat_p50 | 10 | 10.1 | 1.00 | 0.10 |"), std::string::npos)
      << result.out;
}

TEST_F(CliCompareTest, ThresholdAndOutputFile) {
  const std::string before = write("b.csv", kBefore);
  const std::string after = write("a.csv", kAfter);
  const std::string out = (folder_ / "report.md").string();
  const CommandResult result = benchd({"compare", before, after, "--threshold", "0.5", "-o", out});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "");
  std::ifstream in(out);
  std::ostringstream report;
  report << in.rdbuf();
  EXPECT_NE(report.str().find("| ❌ | s | a | lat_p50 |"), std::string::npos) << report.str();
  EXPECT_NE(report.str().find("±0.50 %"), std::string::npos);
}

TEST_F(CliCompareTest, ComparesTheOriginalsFileWithItself) {
  const CommandResult result = benchd({"compare", kFixture, kFixture});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("- 0 improved, 0 regressed, 99 neutral"), std::string::npos);
  EXPECT_NE(result.out.find("- 0 improved, 0 regressed, 165 neutral"), std::string::npos);
}

TEST_F(CliCompareTest, ArgumentErrorsExitWithTwo) {
  const std::string before = write("b.csv", kBefore);
  struct Case {
    std::vector<std::string> arguments;
    std::string message;
  } cases[] = {
      {{"compare", before}, "benchd compare: expected BEFORE and AFTER, got 1 argument"},
      {{"compare", before, before, before},
       "benchd compare: expected BEFORE and AFTER, got 3 arguments"},
      {{"compare", before, before, "--threshold", "-1"},
       "benchd compare: --threshold: expected a non-negative percentage such as 2.5, got '-1'"},
      {{"compare", before, before, "--threshold"}, "benchd compare: --threshold: missing value"},
      {{"compare", before, before, "--frob"}, "benchd compare: unknown option '--frob'"},
  };
  for (const Case& c : cases) {
    const CommandResult result = benchd(c.arguments);
    EXPECT_EQ(result.exit_code, 2) << c.message;
    EXPECT_EQ(firstLine(result.err), c.message);
    EXPECT_NE(result.err.find("usage: benchd compare"), std::string::npos);
  }
}

TEST_F(CliCompareTest, UnreadableInputExitsWithOneNamingTheProblem) {
  const std::string before = write("b.csv", kBefore);
  const std::string bad = write("bad.csv", "scenario,approach,m\ns,a,x\n");
  const CommandResult missing = benchd({"compare", before, (folder_ / "none").string()});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(firstLine(missing.err), "benchd compare: error: " + (folder_ / "none").string() +
                                        ": cannot open the file: No such file or directory");
  const CommandResult invalid = benchd({"compare", bad, before});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_EQ(firstLine(invalid.err), "benchd compare: error: " + bad +
                                        ":2: column 3 (m): expected a number or nothing, got 'x'");
}

}  // namespace
}  // namespace benchd::results
