// Every rule of the plugin contract (benchd::conformance::contractRules(), the list `benchd
// verify-plugin` runs) against every approach plugin of the build: one test case per rule and
// plugin, named "<rule id>__<plugin>" with '.' and '-' as '_', so a failure names both, and
// one more per nested-call rule and client profile besides the native one,
// "<rule id>__<plugin>__<client>". The whole hostile corpus is sent here; verify-plugin sends a
// sample of it.
#include "approach_plugins.hpp"
#include "build_paths.hpp"
#include "worker_process.hpp"

#include <benchd/conformance/hostile_corpus.hpp>
#include <benchd/conformance/rule.hpp>
#include <benchd/conformance/rules.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <iostream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

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

/// One test: a rule, a plugin, and the client profile its workers serve under (empty: the
/// plugin's native client).
struct RuleCase {
  std::size_t rule;
  std::string plugin;
  std::string client;
};

/// What ctest shows after a case's name (gtest would dump the struct's bytes).
void PrintTo(const RuleCase& rule_case, std::ostream* out) {
  *out << contractRules()[rule_case.rule].id << " on " << rule_case.plugin
       << (rule_case.client.empty() ? "" : " with ") << rule_case.client;
}

/// The client profiles an approach plugin's descriptor lists (plugin_entry.cpp), for naming the
/// test cases before any worker runs; each lists client-curl besides its native client
/// (third), which the runs without a client profile check; the thread plugins list
/// client-httplib too, and threads-asio client-poco. A case checks against the profiles
/// the plugin really lists (inspectedProfiles): a client named here that the plugin does not
/// list fails its cases, since the worker refuses it. libmicrohttpd's native client is
/// libcurl, so it lists no other; h2o's is h2o's own HTTP/1 client, and it lists none.
std::vector<std::string> listedProfiles(const std::string& plugin_name) {
  if (plugin_name == "libmicrohttpd")
    return {"no-keep-alive", "postgres", "client-curl"};
  if (plugin_name == "h2o")
    return {"no-keep-alive", "postgres"};
  std::vector<std::string> profiles = {
      "no-keep-alive", "postgres", plugin_name == "threads-poco" ? "client-poco" : "client-beast",
      "client-curl"};
  if (plugin_name == "threads-poco" || plugin_name == "threads-asio")
    profiles.emplace_back("client-httplib");
  if (plugin_name == "threads-asio")
    profiles.emplace_back("client-poco");
  return profiles;
}

/// What the plugin's descriptor lists, as `benchd-worker --inspect` prints it (what
/// `benchd verify-plugin` reads).
struct Inspected {
  std::vector<std::string> profiles;
  std::vector<std::string> contract_exceptions;
};

/// The names in `plugin`'s array `member`, if it has one.
std::vector<std::string> namesIn(const rapidjson::Document& plugin, const char* member) {
  std::vector<std::string> names;
  const auto list = plugin.FindMember(member);
  if (list == plugin.MemberEnd() || !list->value.IsArray())
    return names;
  for (const auto& name : list->value.GetArray()) {
    if (name.IsString())
      names.emplace_back(name.GetString(), name.GetStringLength());
  }
  return names;
}

/// Every profile and contract exception the plugin's descriptor lists, so a rule of an optional
/// profile runs exactly for the plugins that list it and a declared exception is read as
/// verify-plugin reads it; no profiles, failing the test, when the worker cannot inspect the
/// plugin.
Inspected inspectedPlugin(const std::string& plugin_name) {
  WorkerProcess inspected({"--inspect", pluginPath(plugin_name)});
  EXPECT_EQ(inspected.waitExit(), 0) << inspected.stderrText();
  const auto lines = inspected.stdoutLines();
  const std::string line = lines.empty() ? std::string() : lines.front();
  rapidjson::Document plugin;
  plugin.Parse(line.c_str());
  if (plugin.HasParseError() || !plugin.IsObject() || !plugin.HasMember("profiles") ||
      !plugin["profiles"].IsArray()) {
    ADD_FAILURE() << plugin_name << ": no \"profiles\" array in --inspect's line: " << line;
    return {};
  }
  return {namesIn(plugin, "profiles"), namesIn(plugin, "contractExceptions")};
}

class Conformance : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Conformance, Rule) {
  const Rule& rule = contractRules()[GetParam().rule];
  const std::string& plugin_name = GetParam().plugin;
  PluginUnderTest plugin = corpusHolder();
  plugin.worker = workerPath();
  plugin.plugin = pluginPath(plugin_name);
  plugin.name = plugin_name;
  Inspected inspected = inspectedPlugin(plugin_name);
  plugin.implemented_profiles = std::move(inspected.profiles);
  plugin.contract_exceptions = std::move(inspected.contract_exceptions);
  plugin.client_profile = GetParam().client;
  const conformance::RuleOutcome outcome = conformance::checkRule(rule, plugin);
  if (outcome.skipped)
    GTEST_SKIP() << outcome.reason;
  if (outcome.deviated) {
    // Declared by the plugin (its stack decides this); shown, not failed.
    std::cout << rule.id << " deviates on " << plugin_name << " under its contract exception "
              << rule.exception << ": " << outcome.reason << "\n";
    return;
  }
  EXPECT_TRUE(outcome.passed) << rule.id << " (" << rule.statement << ", CONTRACT.md section "
                              << rule.section << ") fails for " << plugin_name
                              << (plugin.client_profile.empty() ? "" : " with ")
                              << plugin.client_profile << ":\n"
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

/// A rule a contract exception covers deviates, not fails, for a plugin that declares the
/// exception; a strict part of the check (conformance::strictly) still fails, and so does the
/// rule for a plugin that does not declare it.
TEST(ConformanceRuleCheck, ADeclaredExceptionTurnsAFailureIntoADeviationButNotAStrictOne) {
  bool strict_part_fails = false;
  Rule rule{"framing.example", "an example", "7", [&strict_part_fails](conformance::RuleContext&) {
              conformance::strictly(
                  [&] { conformance::require(!strict_part_fails, "the server stopped serving"); });
              conformance::fail("answered in the stack's words");
            }};
  rule.exception = "stack-framing";
  PluginUnderTest plugin;
  const conformance::RuleOutcome undeclared = conformance::checkRule(rule, plugin);
  EXPECT_FALSE(undeclared.passed);
  EXPECT_FALSE(undeclared.deviated);

  plugin.contract_exceptions = {"idle-header-timeout", "stack-framing"};
  const conformance::RuleOutcome deviated = conformance::checkRule(rule, plugin);
  EXPECT_FALSE(deviated.passed);
  EXPECT_TRUE(deviated.deviated);
  EXPECT_EQ(deviated.reason, "answered in the stack's words");

  strict_part_fails = true;
  const conformance::RuleOutcome failed = conformance::checkRule(rule, plugin);
  EXPECT_FALSE(failed.passed);
  EXPECT_FALSE(failed.deviated);
  EXPECT_EQ(failed.reason, "the server stopped serving");
}

/// Every rule an exception covers exists, and carries the exception's name.
TEST(ConformanceRuleCheck, TheExceptedRulesCarryTheirException) {
  ASSERT_FALSE(conformance::exceptedRuleIds().empty());
  for (const auto& [id, exception] : conformance::exceptedRuleIds()) {
    const auto selected = conformance::selectRules(id);
    ASSERT_FALSE(selected.empty()) << id;
    EXPECT_EQ(selected.front()->exception, exception) << id;
  }
  EXPECT_TRUE(conformance::selectRules("endpoints.health").front()->exception.empty());
}

/// Every rule against every plugin with its native client, and the nested-call rules once more
/// with each other client it lists (what `benchd verify-plugin` runs, ruleRuns()).
std::vector<RuleCase> ruleCases() {
  std::vector<const Rule*> rules;
  for (const Rule& rule : contractRules())
    rules.push_back(&rule);
  std::vector<RuleCase> cases;
  for (const std::string& plugin_name : approachPlugins()) {
    std::vector<std::string> others = listedProfiles(plugin_name);
    others.erase(others.begin() + 2);  // the native client: the runs without a profile
    for (const conformance::RuleRun& run : conformance::ruleRuns(rules, others)) {
      cases.push_back({static_cast<std::size_t>(run.rule - contractRules().data()), plugin_name,
                       run.client_profile});
    }
  }
  return cases;
}

TEST(ConformanceRuleRuns, NestedCallRulesRunOnceMorePerListedClient) {
  const std::vector<const Rule*> rules = {conformance::selectRules("endpoints.health").front(),
                                          conformance::selectRules("nested.no-resend").front()};
  ASSERT_FALSE(rules[0]->nested);
  ASSERT_TRUE(rules[1]->nested);
  const std::vector<std::string> profiles = {"postgres", "client-curl", "client-beast"};
  std::vector<std::string> ids;
  for (const conformance::RuleRun& run : conformance::ruleRuns(rules, profiles))
    ids.push_back(run.id());
  EXPECT_EQ(ids, (std::vector<std::string>{"endpoints.health", "nested.no-resend",
                                           "nested.no-resend[client-beast]",
                                           "nested.no-resend[client-curl]"}));
  ids.clear();
  for (const conformance::RuleRun& run : conformance::ruleRuns(rules, profiles, "client-curl"))
    ids.push_back(run.id());
  EXPECT_EQ(ids, std::vector<std::string>{"nested.no-resend[client-curl]"});
  EXPECT_TRUE(conformance::ruleRuns(rules, {"postgres"}, "client-curl").empty());
}

TEST(ConformanceRuleRuns, EveryRuleWithANestedCallIsMarked) {
  for (const Rule& rule : contractRules()) {
    if (rule.id.starts_with("nested.")) {
      EXPECT_TRUE(rule.nested) << rule.id;
    }
  }
  EXPECT_FALSE(conformance::selectRules("framing.chunks").front()->nested);
}

std::string identifier(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '.' || c == '-'; }, '_');
  return text;
}

INSTANTIATE_TEST_SUITE_P(Contract, Conformance, ::testing::ValuesIn(ruleCases()),
                         [](const auto& param_info) {
                           const RuleCase& rule_case = param_info.param;
                           return identifier(contractRules()[rule_case.rule].id) + "__" +
                                  testNameOf(rule_case.plugin) +
                                  (rule_case.client.empty() ? std::string()
                                                            : "__" + identifier(rule_case.client));
                         });

}  // namespace
}  // namespace benchd::testing
