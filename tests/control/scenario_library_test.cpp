// The daemon's scenario-file library on real folders: names that cannot escape, validated
// uploads written whole or not at all, built-in files protected.
#include "build_paths.hpp"
#include "scenario_csv.hpp"
#include "temp_dir.hpp"

#include <benchd/control/scenario_library.hpp>
#include <benchd/scenario/scenario_file_error.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace benchd::control {
namespace {

namespace fs = std::filesystem;

using benchd::testing::kScenarioCsvHeader;

std::string validFile() {
  return std::string(kScenarioCsvHeader) + "mine,get-movies,,0,0,5,,0,2\n";
}

std::string contentOf(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

class ScenarioLibraryTest : public ::testing::Test {
 protected:
  [[nodiscard]] fs::path uploads() const { return dir_.path() / "state" / "scenario-files"; }

  benchd::testing::TempDir dir_;
  ScenarioLibrary library_{fs::path(benchd::testing::sourceDir()) / "scenarios", uploads()};
};

TEST(ScenarioFileNames, OnlyPlainCsvNamesAreAccepted) {
  EXPECT_FALSE(ScenarioLibrary::nameProblem("scenarios-ci.csv"));
  EXPECT_FALSE(ScenarioLibrary::nameProblem("My_File.v2.csv"));
  for (const char* bad : {"", "x", ".csv", ".hidden.csv", "../x.csv", "a/b.csv", "a\\b.csv",
                          "x.CSV", "x.txt", "sp ace.csv", "x.csv\n", "%2e%2e.csv"}) {
    EXPECT_TRUE(ScenarioLibrary::nameProblem(bad)) << bad;
  }
  EXPECT_TRUE(ScenarioLibrary::nameProblem(std::string(97, 'a') + ".csv"));
  EXPECT_FALSE(ScenarioLibrary::nameProblem(std::string(96, 'a') + ".csv"));
}

TEST_F(ScenarioLibraryTest, ListsBuiltInFilesWithTheirRows) {
  const std::vector<ScenarioLibrary::Entry> files = library_.list();
  const auto ci = std::find_if(files.begin(), files.end(), [](const ScenarioLibrary::Entry& e) {
    return e.name == "scenarios-ci.csv";
  });
  ASSERT_NE(ci, files.end());
  EXPECT_EQ(ci->source, ScenarioLibrary::Source::kBuiltIn);
  EXPECT_FALSE(library_.rows(*ci).empty());
  EXPECT_FALSE(library_.find("nope.csv"));
  EXPECT_FALSE(library_.find("../scenarios/scenarios-ci.csv"));
}

TEST_F(ScenarioLibraryTest, StoresAValidUploadPrivatelyAndReplacesIt) {
  EXPECT_FALSE(library_.upload("mine.csv", validFile()));
  const std::optional<ScenarioLibrary::Entry> entry = library_.find("mine.csv");
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry->source, ScenarioLibrary::Source::kUploaded);
  EXPECT_EQ(entry->path, uploads() / "mine.csv");
  EXPECT_EQ(library_.rows(*entry).size(), 1U);
  struct stat status {};
  ASSERT_EQ(::stat(entry->path.c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0600U);
  ASSERT_EQ(::stat(uploads().c_str(), &status), 0);
  EXPECT_EQ(status.st_mode & 0777, 0700U);

  const std::string two_rows = validFile() + "second,get-time,,0,0,1,,0,1\n";
  EXPECT_TRUE(library_.upload("mine.csv", two_rows));
  EXPECT_EQ(contentOf(uploads() / "mine.csv"), two_rows);
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& file : fs::directory_iterator(uploads())) {
    ++files;
  }
  EXPECT_EQ(files, 1U);
  EXPECT_TRUE(library_.remove("mine.csv"));
  EXPECT_FALSE(library_.remove("mine.csv"));
  EXPECT_FALSE(library_.find("mine.csv"));
}

TEST_F(ScenarioLibraryTest, ABadUploadNamesTheLineAndColumnAndChangesNothing) {
  ASSERT_FALSE(library_.upload("mine.csv", validFile()));
  const std::string bad = std::string(kScenarioCsvHeader) + "fine,get-movies,,0,0,5,,0,2\n" +
                          "broken,get-movies,,0,0,abc,,0,2\n";
  try {
    (void)library_.upload("mine.csv", bad);
    FAIL() << "accepted a bad file";
  } catch (const scenario::ScenarioFileError& error) {
    EXPECT_EQ(error.line(), 3U);
    EXPECT_EQ(error.column(), 6U);
    EXPECT_NE(std::string(error.what()).find("mine.csv:3"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)library_.upload("mine.csv", std::string(kScenarioCsvHeader) +
                                                     "x,no-such-workload,,0,0,1,,0,1\n"),
               scenario::ScenarioFileError);
  EXPECT_THROW((void)library_.upload("mine.csv", ""), scenario::ScenarioFileError);
  EXPECT_EQ(contentOf(uploads() / "mine.csv"), validFile());
}

TEST_F(ScenarioLibraryTest, RefusesBadNamesAndBuiltInNames) {
  EXPECT_THROW((void)library_.upload("../escape.csv", validFile()), ScenarioNameError);
  EXPECT_THROW((void)library_.upload("x.txt", validFile()), ScenarioNameError);
  EXPECT_THROW((void)library_.upload("scenarios-ci.csv", validFile()), ScenarioConflictError);
  EXPECT_THROW((void)library_.remove("scenarios-ci.csv"), ScenarioConflictError);
  EXPECT_THROW((void)library_.remove("../scenarios/scenarios-ci.csv"), ScenarioNameError);
  EXPECT_FALSE(fs::exists(dir_.path() / "state" / "escape.csv"));
  EXPECT_TRUE(
      fs::exists(fs::path(benchd::testing::sourceDir()) / "scenarios" / "scenarios-ci.csv"));
}

}  // namespace
}  // namespace benchd::control
