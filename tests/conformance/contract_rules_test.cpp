// Every rule of the plugin contract (benchd::conformance::contractRules(), the list `benchd
// verify-plugin` runs) against every approach plugin of the build: one test case per rule and
// plugin, named "<rule id>__<plugin>" with '.' and '-' as '_', so a failure names both. The
// whole hostile corpus is sent here; verify-plugin sends a sample of it.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "worker_process.hpp"

#include <benchd/conformance/hostile_corpus.hpp>
#include <benchd/conformance/rule.hpp>
#include <benchd/conformance/rules.hpp>
#include <benchd/sdk/plugin_entry.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

namespace benchd::testing {
namespace {

using conformance::contractRules;
using conformance::PluginUnderTest;
using conformance::Rule;

/// The in-tree corpus, read once; a problem reading it fails the hostile.* rules with its reason.
const PluginUnderTest& corpusHolder() {
  static const PluginUnderTest holder = [] {
    PluginUnderTest plugin;
    try {
      plugin.corpus = conformance::readHostileCorpus(conformance::hostileCorpusPath(true, {}));
    } catch (const conformance::HostileCorpusError& error) {
      plugin.corpus_problem = error.what();
    }
    return plugin;
  }();
  return holder;
}

class Conformance : public ::testing::TestWithParam<std::tuple<std::size_t, std::string>> {};

TEST_P(Conformance, Rule) {
  const Rule& rule = contractRules()[std::get<0>(GetParam())];
  const std::string& plugin_name = std::get<1>(GetParam());
  PluginUnderTest plugin = corpusHolder();
  plugin.worker = workerPath();
  plugin.plugin = pluginPath(plugin_name);
  plugin.name = plugin_name;
  // What every approach plugin's descriptor lists (plugin_entry.cpp): no rule is skipped here.
  plugin.implemented_profiles = {std::begin(sdk::kTransportAndDatabaseProfiles),
                                 std::end(sdk::kTransportAndDatabaseProfiles)};
  const conformance::RuleOutcome outcome = conformance::checkRule(rule, plugin);
  EXPECT_TRUE(outcome.passed) << rule.id << " (" << rule.statement << ", CONTRACT.md section "
                              << rule.section << ") fails for " << plugin_name << ":\n"
                              << outcome.reason;
}

TEST(ConformanceRuleCheck, ARuleOfAnOptionalProfileIsSkippedUnlessThePluginListsIt) {
  bool checked = false;
  const Rule rule{"connections.example", "an example", "7",
                  [&checked](conformance::RuleContext&) {
                    checked = true;
                    conformance::fail("checked");
                  },
                  "no-keep-alive"};
  PluginUnderTest plugin;
  plugin.implemented_profiles = {"postgres"};
  const conformance::RuleOutcome skipped = conformance::checkRule(rule, plugin);
  EXPECT_TRUE(skipped.skipped);
  EXPECT_FALSE(skipped.passed);
  EXPECT_FALSE(checked);
  EXPECT_NE(skipped.reason.find("optional profile no-keep-alive"), std::string::npos)
      << skipped.reason;

  plugin.implemented_profiles = {"no-keep-alive"};
  const conformance::RuleOutcome failed = conformance::checkRule(rule, plugin);
  EXPECT_TRUE(checked);
  EXPECT_FALSE(failed.skipped);
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.reason, "checked");
}

std::vector<std::size_t> ruleIndexes() {
  std::vector<std::size_t> indexes(contractRules().size());
  for (std::size_t index = 0; index < indexes.size(); ++index)
    indexes[index] = index;
  return indexes;
}

std::string identifier(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '.' || c == '-'; }, '_');
  return text;
}

INSTANTIATE_TEST_SUITE_P(Contract, Conformance,
                         ::testing::Combine(::testing::ValuesIn(ruleIndexes()),
                                            ::testing::ValuesIn(approachPlugins())),
                         [](const auto& param_info) {
                           return identifier(contractRules()[std::get<0>(param_info.param)].id) +
                                  "__" + testNameOf(std::get<1>(param_info.param));
                         });

}  // namespace
}  // namespace benchd::testing
