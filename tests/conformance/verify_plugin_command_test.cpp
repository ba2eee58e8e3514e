// `benchd verify-plugin` as a user runs it: the real command on built plugins. An approach
// plugin passes every rule; a plugin that answers wrongly fails, the rule named with its reason;
// a file the loader refuses, a missing file and bad arguments are named.
#include "build_paths.hpp"
#include "command_runner.hpp"

#include <benchd/conformance/rules.hpp>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace benchd::testing {
namespace {

/// A full check takes half a minute, under a sanitizer a few; within ctest's 600 s per test.
constexpr std::chrono::minutes kFullCheckTimeout{9};

CommandResult verifyPlugin(const std::vector<std::string>& arguments,
                           std::chrono::milliseconds timeout = std::chrono::minutes(5)) {
  std::vector<std::string> all = {"verify-plugin"};
  all.insert(all.end(), arguments.begin(), arguments.end());
  return runCommand(cliPath(), all, timeout);
}

std::string callbacksAsio() {
  return pluginDir() + "/callbacks-asio.so";
}

TEST(VerifyPlugin, AnApproachPluginPassesEveryRule) {
  const CommandResult result = verifyPlugin({callbacksAsio()}, kFullCheckTimeout);
  // Every rule, and the nested-call ones once more per client the plugin lists besides.
  std::vector<const conformance::Rule*> all;
  for (const conformance::Rule& rule : conformance::contractRules())
    all.push_back(&rule);
  const std::vector<std::string> listed = {
      "no-keep-alive", "postgres", "client-beast", "client-curl", "tls", "h2", "h2c"};
  const auto runs = conformance::ruleRuns(all, listed);
  ASSERT_GT(runs.size(), all.size());
  // callbacks-asio lists every optional profile a rule is about: none is skipped.
  for (const conformance::RuleRun& run : runs) {
    EXPECT_TRUE(run.rule->profile.empty() ||
                std::find(listed.begin(), listed.end(), run.rule->profile) != listed.end())
        << run.id() << " is about " << run.rule->profile;
  }
  const std::string checked = std::to_string(runs.size());
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("\n" + checked + " of " + checked + " rules passed\n"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("PASS  endpoints.health  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("PASS  tls.answers  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("PASS  h2.concurrent-streams  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("PASS  h2c.stream-reset  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("PASS  nested.no-resend[client-curl]  "), std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("FAIL"), std::string::npos) << result.out;
}

TEST(VerifyPlugin, ClientNarrowsToTheNestedCallRulesWithThatClient) {
  const CommandResult result =
      verifyPlugin({callbacksAsio(), "--client", "client-curl", "--rule", "nested"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("PASS  nested.idle-pool-closed[client-curl]  "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("3 of 3 rules passed"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("PASS  nested.no-resend  "), std::string::npos)
      << "the native client's runs are left out: " << result.out;
}

TEST(VerifyPlugin, AClientThePluginDoesNotListIsNamed) {
  const CommandResult result =
      verifyPlugin({pluginDir() + "/threads-poco.so", "--client", "client-beast"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.err.find("threads-poco does not implement client-beast (its profiles: "
                            "no-keep-alive, postgres, client-poco, client-curl, client-httplib, "
                            "tls, h2, h2c)"),
            std::string::npos)
      << result.err;
}

TEST(VerifyPlugin, AWrongPluginFailsNamingTheRuleAndTheReason) {
  // wrong-answers (tests/test_plugins) answers 200 "[]" at once to anything but /health.
  const CommandResult result =
      verifyPlugin({testPluginDir() + "/wrong-answers/wrong-answers.so", "--rule", "endpoints"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  EXPECT_NE(result.out.find("FAIL  endpoints.epoch-millis  epoch-millis answers the time after "
                            "the wait"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("\n      delayCallDepth=0 delayInMillis=0: "), std::string::npos)
      << "the reason, indented under the rule: " << result.out;
  EXPECT_NE(result.out.find("\n      CONTRACT.md section 2, 6: " +
                            std::string(conformance::contractCitation("endpoints.epoch-millis"))),
            std::string::npos)
      << "the contract's words for the rule, under the reason: " << result.out;
  EXPECT_NE(result.out.find(" of 5 rules passed"), std::string::npos) << result.out;
}

TEST(VerifyPlugin, APluginThatListsTlsAndHttp2ButServesPlainHttpFailsTheirRules) {
  // claims-tls (tests/test_plugins) lists tls, h2 and h2c and answers every connection in
  // plain HTTP/1.1: the TLS handshake, the HTTP/2 preface and ALPN must each fail, saying why.
  const CommandResult result = verifyPlugin(
      {testPluginDir() + "/claims-tls/claims-tls.so", "--rule", "tls.answers", "--rule",
       "tls.nothing-in-clear", "--rule", "h2.answers", "--rule", "h2c.answers"});
  EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
  for (const std::string rule :
       {"tls.answers", "tls.nothing-in-clear", "h2.answers", "h2c.answers"}) {
    EXPECT_NE(result.out.find("FAIL  " + rule + "  "), std::string::npos) << rule << result.out;
  }
  EXPECT_NE(result.out.find("TLS handshake with port"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("plain HTTP to the TLS port was answered in clear: HTTP/1.1 200"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("could not open an HTTP/2 connection under h2c: "), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("0 of 4 rules passed"), std::string::npos) << result.out;
}

TEST(VerifyPlugin, ARuleOfAProfileThePluginDoesNotListIsSkippedSayingWhy) {
  // Every approach plugin lists tls; this test plugin lists no profile but no-keep-alive.
  const CommandResult result =
      verifyPlugin({testPluginDir() + "/wrong-answers/wrong-answers.so", "--rule", "tls.answers"});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("SKIP  tls.answers  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("the plugin does not implement the optional profile tls"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("0 of 0 rules passed, 1 skipped"), std::string::npos) << result.out;
}

TEST(VerifyPlugin, JsonHoldsEveryRuleChecked) {
  const CommandResult result =
      verifyPlugin({"--json", "--rule", "endpoints.health", "--threads", "2", callbacksAsio()});
  ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
  rapidjson::Document document;
  document.Parse(result.out.c_str());
  ASSERT_TRUE(document.IsObject()) << result.out;
  EXPECT_STREQ(document["plugin"]["name"].GetString(), "callbacks-asio");
  ASSERT_EQ(document["rules"].Size(), 1U);
  EXPECT_STREQ(document["rules"][0]["id"].GetString(), "endpoints.health");
  EXPECT_TRUE(document["rules"][0]["passed"].GetBool());
  EXPECT_FALSE(document["rules"][0]["skipped"].GetBool());
  EXPECT_EQ(document["rules"][0]["contractText"].GetString(),
            conformance::contractCitation("endpoints.health"));
  EXPECT_EQ(document["rulesPassed"].GetUint(), 1U);
  EXPECT_EQ(document["rulesFailed"].GetUint(), 0U);
  EXPECT_EQ(document["rulesSkipped"].GetUint(), 0U);
  ASSERT_TRUE(document["plugin"]["profiles"].IsArray());
  EXPECT_EQ(document["plugin"]["profiles"].Size(), 7U)
      << "no-keep-alive, postgres, client-beast, client-curl, tls, h2 and h2c";
}

/// libmicrohttpd declares stack-framing: a framing rule its stack answers in its own words
/// deviates (exit 0, named with the exception), in the text and in --json, while the rules it
/// holds still pass.
TEST(VerifyPlugin, ARuleThePluginsDeclaredExceptionCoversDeviatesInsteadOfFailing) {
  const std::string plugin = pluginDir() + "/libmicrohttpd.so";
  const CommandResult text =
      verifyPlugin({plugin, "--rule", "framing.malformed", "--rule", "framing.body-over-limit"});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_NE(text.out.find("contract exceptions stack-framing, idle-header-timeout\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("DEVIATES  framing.malformed  "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("as its contract exception stack-framing allows"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("PASS  framing.body-over-limit  "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 of 2 rules passed, 1 deviated as the plugin's contract exceptions "
                          "allow (stack-framing, idle-header-timeout)"),
            std::string::npos)
      << text.out;

  const CommandResult json = verifyPlugin({"--json", "--rule", "framing.malformed", plugin});
  EXPECT_EQ(json.exit_code, 0) << json.out << json.err;
  rapidjson::Document document;
  document.Parse(json.out.c_str());
  ASSERT_TRUE(document.IsObject()) << json.out;
  ASSERT_EQ(document["rules"].Size(), 1U);
  EXPECT_TRUE(document["rules"][0]["deviated"].GetBool());
  EXPECT_STREQ(document["rules"][0]["contractException"].GetString(), "stack-framing");
  EXPECT_EQ(document["rulesDeviated"].GetUint(), 1U);
  EXPECT_EQ(document["rulesFailed"].GetUint(), 0U);
  ASSERT_EQ(document["plugin"]["contractExceptions"].Size(), 2U);
}

/// --option reaches every worker a rule serves: libmicrohttpd's event-driven modes, whose
/// requests wait in the plugin's reactor, hold the rules of waits, nested calls, departures,
/// stops and TLS as its default mode does.
TEST(VerifyPlugin, AnOptionChecksOneOfAPluginsModes) {
  const std::string plugin = pluginDir() + "/libmicrohttpd.so";
  const std::vector<std::string> rules = {"endpoints.epoch-millis",
                                          "endpoints.get-movies",
                                          "nested.no-resend",
                                          "nested.idle-pool-closed",
                                          "lifetime.hung-up",
                                          "lifetime.half-close",
                                          "lifetime.pipelined",
                                          "stop.drains-in-flight",
                                          "stop.timeout",
                                          "counters",
                                          "tls.answers",
                                          "tls.client-leaves"};
  for (const std::string mode : {"internal", "pool"}) {
    std::vector<std::string> arguments = {plugin, "--option", "mode=" + mode, "--threads", "2"};
    for (const std::string& rule : rules)
      arguments.insert(arguments.end(), {"--rule", rule});
    const CommandResult result = verifyPlugin(arguments, kFullCheckTimeout);
    EXPECT_EQ(result.exit_code, 0) << mode << "\n" << result.out << result.err;
    EXPECT_NE(result.out.find(", options mode=" + mode + "\n"), std::string::npos) << result.out;
    EXPECT_EQ(result.out.find("FAIL"), std::string::npos) << mode << "\n" << result.out;
    EXPECT_NE(result.out.find("PASS  nested.no-resend  "), std::string::npos) << result.out;
  }
  const CommandResult refused = verifyPlugin({plugin, "--option", "mode"});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--option: expected KEY=VALUE, got 'mode'"), std::string::npos)
      << refused.err;
}

TEST(VerifyPlugin, APluginTheLoaderRefusesIsNamedWithTheReason) {
  const std::string path = brokenPluginDir() + "/newer_abi_minor.so";
  const CommandResult result = verifyPlugin({path});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find(path + ": refused by the plugin loader: "), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("built for plugin ABI"), std::string::npos)
      << "names both versions: " << result.err;
  EXPECT_EQ(result.out, "");
}

TEST(VerifyPlugin, AMissingFileIsNamed) {
  const CommandResult result = verifyPlugin({"/nonexistent/plugin.so"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.err, "benchd verify-plugin: error: /nonexistent/plugin.so: no such file\n");
}

TEST(VerifyPlugin, BadArgumentsAreUsageErrors) {
  for (const std::vector<std::string>& arguments : std::vector<std::vector<std::string>>{
           {},
           {callbacksAsio(), "--rule", "no-such-rule"},
           {callbacksAsio(), "--threads", "0"},
           {callbacksAsio(), "--client", "client-grpc"},
           {callbacksAsio(), callbacksAsio()},
           {"--frobnicate"},
       }) {
    const CommandResult result = verifyPlugin(arguments);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find("usage: benchd verify-plugin PATH"), std::string::npos) << result.err;
  }
}

TEST(VerifyPlugin, ListNamesEveryRule) {
  const CommandResult result = verifyPlugin({"--list"});
  EXPECT_EQ(result.exit_code, 0);
  for (const conformance::Rule& rule : conformance::contractRules())
    EXPECT_NE(result.out.find(rule.id + " "), std::string::npos) << rule.id;
}

}  // namespace
}  // namespace benchd::testing
