// Every conformance rule quotes the sentence(s) of CONTRACT.md it checks
// (daemon/conformance/src/contract_citations.cpp), and `benchd verify-plugin` prints the quote
// beside a failing rule. A quote the contract no longer holds would show a plugin author a
// requirement nobody wrote; so each one must still be in the contract word for word, and in a
// section the rule names, and rewording the contract fails here naming the rules to revisit.
#include "build_paths.hpp"

#include <benchd/conformance/rule.hpp>
#include <benchd/conformance/rules.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::testing {
namespace {

using conformance::contractCitation;
using conformance::contractRules;
using conformance::Rule;

/// Joins the sentences of a citation.
constexpr std::string_view kPieceSeparator = " ... ";

/// `text` with every run of blanks and line ends made one space, none at either end: the
/// contract wraps a sentence over lines, a citation quotes it on one.
std::string normalised(std::string_view text) {
  std::string result;
  bool blank = false;
  for (const char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      blank = true;
      continue;
    }
    if (blank && !result.empty())
      result += ' ';
    result += c;
    blank = false;
  }
  return result;
}

/// plugins/sdk/CONTRACT.md of this checkout.
std::string contractText() {
  const std::filesystem::path file =
      std::filesystem::path(sourceDir()) / "plugins" / "sdk" / "CONTRACT.md";
  std::ifstream in(file);
  if (!in)
    throw std::runtime_error("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Section `number` of the contract: the lines after its "## <number>." heading up to the next
/// "## " heading. Empty when the contract has no such section.
std::string sectionText(const std::string& contract, const std::string& number) {
  const std::string heading = "## " + number + ".";
  std::istringstream lines(contract);
  std::string line;
  std::string text;
  bool inside = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("## ")) {
      if (inside)
        break;
      inside = line.starts_with(heading);
      continue;
    }
    if (inside)
      text += line + "\n";
  }
  return text;
}

/// `text` cut at every `separator`, each part trimmed of blanks.
std::vector<std::string> split(std::string_view text, std::string_view separator) {
  std::vector<std::string> parts;
  for (;;) {
    const std::size_t end = text.find(separator);
    parts.push_back(normalised(text.substr(0, end)));
    if (end == std::string_view::npos)
      return parts;
    text.remove_prefix(end + separator.size());
  }
}

TEST(ContractCitations, EveryRuleCitesTheContract) {
  // contractRules() fills in each citation and throws, naming the rule, when one has none.
  const std::vector<Rule>* rules = nullptr;
  try {
    rules = &contractRules();
  } catch (const std::logic_error& error) {
    FAIL() << error.what();
  }
  for (const Rule& rule : *rules)
    EXPECT_FALSE(rule.citation.empty()) << rule.id << " cites nothing of CONTRACT.md";
}

TEST(ContractCitations, EveryRuleCitesWordsTheContractSaysInASectionItNames) {
  const std::string contract = contractText();
  for (const Rule& rule : contractRules()) {
    std::vector<std::string> sections;
    for (const std::string& number : split(rule.section, ",")) {
      const std::string text = sectionText(contract, number);
      EXPECT_FALSE(text.empty()) << rule.id << " names section " << number
                                 << ", which CONTRACT.md does not have";
      sections.push_back(normalised(text));
    }
    for (const std::string& piece : split(rule.citation, kPieceSeparator)) {
      // An empty piece (a stray " ... ") is found in any text and would pass unread.
      EXPECT_FALSE(piece.empty()) << rule.id << " has an empty sentence in its citation '"
                                  << rule.citation << "'";
      const bool found = std::any_of(
          sections.begin(), sections.end(),
          [&](const std::string& text) { return text.find(piece) != std::string::npos; });
      EXPECT_TRUE(found) << rule.id << " cites words that CONTRACT.md section(s) " << rule.section
                         << " do not say: '" << piece << "'";
    }
  }
}

TEST(ContractCitations, ARuleIdWithoutACitationIsALogicError) {
  // A rule added without its citation must stop contractRules(), not run citing nothing.
  EXPECT_THROW(contractCitation("no.such-rule"), std::logic_error);
}

}  // namespace
}  // namespace benchd::testing
