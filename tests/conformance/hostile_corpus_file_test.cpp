// The hostile corpus as data (daemon/conformance/data/hostile-requests.txt): its format reads
// back every byte it writes, a bad line is named, and the checked-in file still holds the
// requests the shared generator plans (hostile_corpus_plan.hpp). When the generator changes,
// rerun benchd_hostile_corpus_writer (see hostile_corpus_writer.cpp).
#include "hostile_corpus_plan.hpp"

#include <benchd/conformance/hostile_corpus.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

namespace benchd::testing {
namespace {

using conformance::HostileCase;

TEST(HostileCorpusFormat, ReadsBackEveryByteRunAndPlaceholder) {
  HostileCase hostile;
  hostile.family = "every-byte";
  hostile.ending = conformance::ClientEnding::kReset;
  hostile.allowed_answers = {400, conformance::kClosedWithoutAnswer};
  std::string all;
  for (int byte = 0; byte < 256; ++byte)
    all += static_cast<char>(byte);
  std::string middle = "/x{a}\\";
  middle += all;
  middle.append(5000, 'x');
  middle.append(20, '\0');
  std::string last(13, '{');
  last += "\r\n\r\n";
  hostile.pieces.push_back("GET /");
  hostile.pieces.push_back(middle);
  hostile.pieces.push_back(last);
  const std::string line = conformance::formatHostileCase(hostile);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const auto parsed = conformance::parseHostileCorpus("# comment\n\n" + line + "\n", "test");
  ASSERT_EQ(parsed.size(), 1U);
  EXPECT_EQ(parsed[0].family, hostile.family);
  EXPECT_EQ(parsed[0].ending, hostile.ending);
  EXPECT_EQ(parsed[0].allowed_answers, hostile.allowed_answers);
  EXPECT_NE(line.find("\t400 or closed\t"), std::string::npos) << line;
  EXPECT_TRUE(parsed[0].allows(conformance::kClosedWithoutAnswer));
  EXPECT_FALSE(parsed[0].allows(200));
  EXPECT_EQ(parsed[0].pieces, hostile.pieces);
  EXPECT_EQ(parsed[0].line, 3U);
  EXPECT_EQ(parsed[0].bytesFor("p").substr(0, 8), "GET /p/x");
  EXPECT_LT(line.size(), 1500U) << "runs are written as \\*N:";
}

TEST(HostileCorpusFormat, ABadLineIsNamedWithItsColumn) {
  const auto error_of = [](const std::string& text) {
    try {
      (void)conformance::parseHostileCorpus(text, "corpus.txt");
    } catch (const conformance::HostileCorpusError& error) {
      return std::string(error.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(error_of("# c\nvalid\thalf-close\t200\tGET \\q\n"),
            "corpus.txt:2: column 4 (bytes): column 6: unknown escape '\\q'");
  EXPECT_EQ(error_of("valid\thalf-close\t200\t{b}\n"),
            "corpus.txt:1: column 4 (bytes): column 2: '{' outside the placeholder {a} must be "
            "written \\x7b");
  EXPECT_EQ(error_of("valid\tclose\t200\tx\n"),
            "corpus.txt:1: column 2 (ending): expected 'half-close' or 'reset', got 'close'");
  const std::string allowed_error =
      "corpus.txt:1: column 3 (allowed answers): expected status codes from 100 to 599 or "
      "'closed', joined by ' or ', got ";
  EXPECT_EQ(error_of("valid\treset\t99\tx\n"), allowed_error + "'99'");
  EXPECT_EQ(error_of("valid\treset\t0\tx\n"), allowed_error + "'0'");
  EXPECT_EQ(error_of("valid\treset\t400 or\tx\n"), allowed_error + "'400 or'");
  EXPECT_EQ(error_of("valid\treset\t400 or 400\tx\n"), allowed_error + "'400 or 400'");
  EXPECT_EQ(error_of("valid\treset\t200\n"),
            "corpus.txt:1: expected 4 tab-separated fields (family, ending, allowed answers, "
            "bytes), got 3");
  EXPECT_EQ(error_of("valid\treset\t200\t\\x4\n"),
            "corpus.txt:1: column 4 (bytes): column 3: \\x must be followed by two lower-case hex "
            "digits");
}

TEST(HostileCorpusFile, IsFoundBesideAnInstalledBenchd) {
  // <prefix>/bin/benchd -> <prefix>/<datadir>/benchd/conformance/, whatever the prefix.
  const std::filesystem::path installed =
      conformance::hostileCorpusPath(false, "/opt/somewhere/bin/benchd");
  EXPECT_TRUE(installed.string().starts_with("/opt/somewhere/")) << installed;
  EXPECT_TRUE(installed.string().ends_with("/benchd/conformance/hostile-requests.txt"))
      << installed;
  EXPECT_TRUE(std::filesystem::is_regular_file(conformance::hostileCorpusPath(true, {})))
      << "in the build tree, the source tree's file";
}

TEST(HostileCorpusFile, HoldsTheRequestsTheGeneratorPlans) {
  const std::vector<HostileCase> file =
      conformance::readHostileCorpus(conformance::hostileCorpusPath(true, {}));
  const std::vector<HostileCase> planned = plannedHostileCorpus();
  // The writer leaves out requests the plugins answer differently: the file is the plan in
  // order, a few requests fewer.
  std::size_t next = 0;
  for (const HostileCase& hostile : file) {
    while (next < planned.size() &&
           (planned[next].pieces != hostile.pieces || planned[next].family != hostile.family ||
            planned[next].ending != hostile.ending)) {
      ++next;
    }
    ASSERT_LT(next, planned.size())
        << "line " << hostile.line << " (" << hostile.family
        << ") is not a request the generator plans: the generator changed; rerun "
           "benchd_hostile_corpus_writer (tests/conformance/hostile_corpus_writer.cpp)";
    ++next;
  }
  EXPECT_GE(file.size() * 100, planned.size() * 95)
      << "the file holds " << file.size() << " of the " << planned.size() << " planned requests";
  std::map<std::string, std::size_t> families;
  for (const HostileCase& hostile : file)
    ++families[hostile.family];
  EXPECT_GE(families.size(), 20U) << "families in the file";
}

}  // namespace
}  // namespace benchd::testing
