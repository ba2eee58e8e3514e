// Approach variants (runner/approach_variant.hpp) and the rounds' shuffled orders
// (runner/round_order.hpp): what `benchd run -a`, `--aa` and `--repeat` are built on. Pure
// functions: no processes.

#include <benchd/runner/approach_variant.hpp>
#include <benchd/runner/round_order.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::runner {
namespace {

TEST(ApproachVariant, APlainNameIsThePluginAsInstalled) {
  const ApproachVariant variant = parseApproachVariant("callbacks-asio");
  EXPECT_EQ(variant.plugin, "callbacks-asio");
  EXPECT_TRUE(variant.options.empty());
  EXPECT_TRUE(variant.label.empty());
  EXPECT_EQ(variant.name(), "callbacks-asio");
  EXPECT_TRUE(variant.optionArguments().empty());
}

TEST(ApproachVariant, OptionsAndLabelKeepTheirOrder) {
  const ApproachVariant variant =
      parseApproachVariant("threads-asio[max_threads=200,stack_kib=128]#small");
  EXPECT_EQ(variant.plugin, "threads-asio");
  ASSERT_EQ(variant.options.size(), 2U);
  EXPECT_EQ(variant.options[0], (std::pair<std::string, std::string>{"max_threads", "200"}));
  EXPECT_EQ(variant.options[1], (std::pair<std::string, std::string>{"stack_kib", "128"}));
  EXPECT_EQ(variant.label, "small");
  EXPECT_EQ(variant.name(), "threads-asio[max_threads=200,stack_kib=128]#small");
  EXPECT_EQ(variant.optionArguments(),
            (std::vector<std::string>{"max_threads=200", "stack_kib=128"}));
  EXPECT_EQ(parseApproachVariant("callbacks-asio#2").name(), "callbacks-asio#2");
  EXPECT_EQ(parseApproachVariant("p[k=]").options.at(0).second, "");  // an empty value is a value
}

TEST(ApproachVariant, TheAaPartnerDiffersOnlyInItsLabel) {
  const ApproachVariant plain = parseApproachVariant("callbacks-asio");
  EXPECT_EQ(aaPartner(plain).name(), "callbacks-asio#2");
  const ApproachVariant labelled = parseApproachVariant("threads-asio[max_threads=200]#x");
  const ApproachVariant partner = aaPartner(labelled);
  EXPECT_EQ(partner.name(), "threads-asio[max_threads=200]#x-2");
  EXPECT_EQ(partner.optionArguments(), labelled.optionArguments());
}

/// The message of the error `text` gives, or "" when it parses.
std::string errorOf(const std::string& text) {
  try {
    (void)parseApproachVariant(text);
  } catch (const ApproachVariantError& error) {
    return error.what();
  }
  return {};
}

TEST(ApproachVariant, BadSpellingsNameTheTextThePlaceAndTheReason) {
  EXPECT_EQ(errorOf(""),
            "approach '': at character 1: expected the plugin name (letters, "
            "digits, '-', '_', '.')");
  EXPECT_EQ(errorOf("x[a]"), "approach 'x[a]': at character 4: expected '=' after option 'a'");
  EXPECT_EQ(errorOf("x[a=1"),
            "approach 'x[a=1': at character 6: the options are not closed "
            "with ']'");
  EXPECT_EQ(errorOf("x[a=1,a=2]"),
            "approach 'x[a=1,a=2]': at character 10: option 'a' is given "
            "twice");
  EXPECT_EQ(errorOf("x#"),
            "approach 'x#': at character 3: expected a label after '#' "
            "(letters, digits, '-', '_', '.')");
  EXPECT_NE(errorOf("x y").find("unexpected ' '"), std::string::npos);
  EXPECT_NE(errorOf("x[a=1]]").find("unexpected ']'"), std::string::npos);
  EXPECT_NE(errorOf("x[a=b#c]").find("a value may not hold '#'"), std::string::npos);
  EXPECT_NE(errorOf("x[=1]").find("expected KEY=VALUE"), std::string::npos);
  EXPECT_NE(errorOf("x[a=\n]").find("a value may not hold"), std::string::npos);
  // The name becomes a chart's file name: no path separators.
  EXPECT_NE(errorOf("x[a=../../etc]").find("a value may not hold '/'"), std::string::npos);
  EXPECT_NE(errorOf("x[a=..\\..]").find("a value may not hold '\\'"), std::string::npos);
}

/// `threads` is the runner's key (the worker's --threads), with the worker's range.
TEST(ApproachVariant, ThreadsIsAnIntegerWithinTheWorkersRange) {
  EXPECT_EQ(parseWorkerThreads("1"), 1U);
  EXPECT_EQ(parseWorkerThreads("1024"), kMaxWorkerThreads);
  for (const char* bad : {"0", "1025", "two", "", "3 ", "-1"}) {
    try {
      (void)parseWorkerThreads(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()),
                std::string("threads: expected an integer from 1 to 1024, got '") + bad + "'");
    }
  }
}

TEST(RoundOrder, IsAPermutationThatTheSeedReproduces) {
  for (std::size_t count : {1U, 2U, 5U, 9U}) {
    const std::vector<std::size_t> order = roundOrder(count, 42, 3, 2);
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t index = 0; index < count; ++index) {
      EXPECT_EQ(sorted[index], index);
    }
    EXPECT_EQ(roundOrder(count, 42, 3, 2), order);
  }
  EXPECT_TRUE(roundOrder(0, 1, 0, 1).empty());
}

TEST(RoundOrder, RoundsAndRowsGetDifferentOrdersAndBothOrdersOfTwoOccur) {
  // Five approaches have 120 orders; 40 rounds of one seed should see many of them, and with two
  // approaches each order about half of the time (a fixed order would defeat the rounds).
  std::set<std::vector<std::size_t>> seen;
  for (std::uint32_t round = 1; round <= 40; ++round) {
    seen.insert(roundOrder(5, 7, 0, round));
  }
  EXPECT_GT(seen.size(), 25U);
  EXPECT_NE(roundOrder(5, 7, 0, 1), roundOrder(5, 7, 1, 1));
  std::size_t swapped = 0;
  for (std::uint32_t round = 1; round <= 200; ++round) {
    swapped += roundOrder(2, 11, 0, round).front() == 1 ? 1U : 0U;
  }
  EXPECT_GT(swapped, 70U);
  EXPECT_LT(swapped, 130U);
}

}  // namespace
}  // namespace benchd::runner
