// The usage blocks in docs/ name exactly the options each program's --help lists, so the two
// cannot drift apart (run.md once lacked --postgres and --db-pool that `benchd run --help` had).
#include "build_paths.hpp"
#include "command_runner.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace benchd::testing {
namespace {

namespace fs = std::filesystem;

/// The options (-x, --long-name) a text names.
std::set<std::string> optionsIn(const std::string& text) {
  static const std::regex kOption(R"((?:^|[\s\[|(])(--?[A-Za-z][A-Za-z0-9-]*))");
  std::set<std::string> options;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kOption);
       it != std::sregex_iterator(); ++it) {
    options.insert((*it)[1].str());
  }
  options.erase("--help");  // every program has it; the docs' synopses leave it out
  return options;
}

/// The fenced block of `doc` whose first line starts with `start`; empty when there is none.
std::string usageBlock(const fs::path& doc, const std::string& start) {
  std::ifstream in(doc);
  std::string line;
  std::string block;
  bool fenced = false;
  bool taking = false;
  while (std::getline(in, line)) {
    if (line.starts_with("```")) {
      if (taking) {
        return block;
      }
      fenced = !fenced;
      continue;
    }
    if (fenced && !taking && line.starts_with(start)) {
      taking = true;
    }
    if (taking) {
      block += line + "\n";
    }
  }
  return block;
}

/// The option lines of a --help text: the first word of each line indented by two spaces that
/// starts with '-', and the options of its usage line.
std::string helpOptions(const std::string& help) {
  std::istringstream in(help);
  std::string line;
  std::string options;
  while (std::getline(in, line)) {
    if (line.starts_with("usage:") || line.starts_with("  -")) {
      options += line.substr(0, line.find("  ", 3)) + "\n";
    }
  }
  return options;
}

std::string join(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& name : names) {
    text += (text.empty() ? "" : " ") + name;
  }
  return text;
}

struct UsageDoc {
  std::string doc;      ///< under docs/
  std::string block;    ///< the first line's start
  std::string program;  ///< "benchd" or "benchd-worker"
  std::vector<std::string> arguments;
};

/// Names the case in ctest's list instead of its bytes.
void PrintTo(const UsageDoc& usage, std::ostream* out) {
  *out << "docs/" << usage.doc << ": " << usage.block;
}

/// "benchd_run", "benchd_worker": the program and its subcommand, for the test's name.
std::string caseName(const ::testing::TestParamInfo<UsageDoc>& case_info) {
  const std::string& block = case_info.param.block;
  std::string name = block.substr(0, block.find(' ', 7));
  for (char& c : name) {
    c = std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '_';
  }
  return name;
}

class UsageDocs : public ::testing::TestWithParam<UsageDoc> {};

TEST_P(UsageDocs, NameTheOptionsTheHelpLists) {
  const UsageDoc& usage = GetParam();
  const std::string block = usageBlock(fs::path(sourceDir()) / "docs" / usage.doc, usage.block);
  ASSERT_FALSE(block.empty()) << "no usage block starting with '" << usage.block << "' in docs/"
                              << usage.doc;
  const std::string program = usage.program == "benchd" ? cliPath() : workerPath();
  const CommandResult help = runCommand(program, usage.arguments);
  ASSERT_EQ(help.exit_code, 0) << help.err;
  const std::set<std::string> documented = optionsIn(block);
  const std::set<std::string> listed = optionsIn(helpOptions(help.out));
  std::set<std::string> missing;
  std::set<std::string> extra;
  for (const std::string& option : listed) {
    if (documented.count(option) == 0) {
      missing.insert(option);
    }
  }
  for (const std::string& option : documented) {
    if (listed.count(option) == 0) {
      extra.insert(option);
    }
  }
  EXPECT_TRUE(missing.empty()) << "docs/" << usage.doc << " lacks " << join(missing)
                               << " that --help lists";
  EXPECT_TRUE(extra.empty()) << "docs/" << usage.doc << " names " << join(extra)
                             << " that --help does not";
}

INSTANTIATE_TEST_SUITE_P(
    Docs, UsageDocs,
    ::testing::Values(UsageDoc{"run.md", "benchd run [", "benchd", {"run", "--help"}},
                      UsageDoc{"run.md", "benchd compare ", "benchd", {"compare", "--help"}},
                      UsageDoc{"daemon-api.md", "benchd serve ", "benchd", {"serve", "--help"}},
                      UsageDoc{"worker.md", "benchd-worker --plugin", "benchd-worker", {"--help"}}),
    caseName);

}  // namespace
}  // namespace benchd::testing
