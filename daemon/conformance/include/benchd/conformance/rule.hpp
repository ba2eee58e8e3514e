#pragma once
// A rule of the plugin contract (plugins/sdk/CONTRACT.md) as something that can be checked: an
// id, the statement as the contract says it, and a check that serves the plugin under test in
// real benchd-worker processes, talks HTTP to it and either returns (pass) or throws
// RuleFailure with a reason that names what was sent, what was expected and what came back.
//
// The list of rules (rules.hpp) is the one definition: `benchd verify-plugin` runs it against
// any plugin file, and the in-tree conformance suite (tests/conformance) runs it against every
// approach plugin, one test case per rule and plugin.
//
// Checks wait for states (a stats line, a closed socket), never for a fixed time, and bound
// every wait; a check may take seconds (a stop timeout, a header deadline) but never hangs.
// Each check starts and stops its own workers, so rules are independent and may run in any
// order or at the same time.

#include <benchd/conformance/hostile_corpus.hpp>
#include <benchd/conformance/worker_process.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::conformance {

/// The plugin a rule is checked against, and how.
struct PluginUnderTest {
  std::filesystem::path worker;  ///< the benchd-worker executable that serves it
  std::filesystem::path plugin;  ///< the plugin file
  /// The descriptor's name: the first path segment of every endpoint but /health.
  std::string name;
  /// --threads for every worker; unset: the worker's default (the machine's hardware threads).
  std::optional<unsigned> threads;
  /// Plugin options ("KEY=VALUE") for every worker serve() starts, before the rule's own.
  std::vector<std::string> options;
  /// The profiles the plugin implements itself (its descriptor's implemented_profiles, as the
  /// plugin loader reads them): a rule about an optional profile not listed here is skipped.
  std::vector<std::string> implemented_profiles;
  /// The contract exceptions its descriptor declares, by name ("stack-framing"): a rule they
  /// cover that does not hold is a declared deviation, not a failure (RuleOutcome::deviated).
  std::vector<std::string> contract_exceptions;
  /// The hostile-request corpus (hostile_corpus.hpp); empty: the hostile.* rules fail, saying
  /// why in `corpus_problem`.
  std::vector<HostileCase> corpus;
  std::string corpus_problem;
  /// The client profile the workers serve under (e.g. "client-curl"), for the rules that make
  /// nested calls (Rule::nested); empty: the plugin's native client.
  std::string client_profile;
};

/// A rule that does not hold. what() is the reason: what was sent, expected and received.
class RuleFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure no contract exception excuses: a check of a rule that an exception covers throws
/// it for the part the exception does not cover (a valid request refused, a server that stops
/// serving).
class StrictRuleFailure : public RuleFailure {
 public:
  using RuleFailure::RuleFailure;
};

/// What a check works with: the plugin under test, and workers serving it.
class RuleContext {
 public:
  explicit RuleContext(const PluginUnderTest& plugin) : plugin_(plugin) {}

  [[nodiscard]] const PluginUnderTest& plugin() const noexcept { return plugin_; }
  /// "/{a}" + resource, e.g. path("/movies") is "/callbacks-asio/movies".
  [[nodiscard]] std::string path(std::string_view resource) const;
  /// path("/epoch-millis?" + query).
  [[nodiscard]] std::string epoch(std::string_view query) const;

  /// A worker serving the plugin on an ephemeral port, stats every 50 ms, with `extra_args`
  /// (e.g. {"--profile", "read-write"}) after the plugin's --threads, its options and the
  /// client profile (PluginUnderTest::client_profile), if any. Fails the rule when the worker does
  /// not get ready.
  [[nodiscard]] std::unique_ptr<WorkerProcess> serve(
      std::vector<std::string> extra_args = {}) const;
  /// A worker started with `--plugin <file>` and `args`, not waited for (for arguments the
  /// worker must refuse).
  [[nodiscard]] std::unique_ptr<WorkerProcess> start(std::vector<std::string> args) const;

 private:
  const PluginUnderTest& plugin_;
};

/// Fails the rule with `reason`.
[[noreturn]] void fail(const std::string& reason);
/// Fails the rule with `reason` unless `holds`.
void require(bool holds, const std::string& reason);
/// Runs `part` of a check; a failure in it is a StrictRuleFailure, which the rule's contract
/// exception does not excuse.
void strictly(const std::function<void()>& part);

struct Rule {
  std::string id;         ///< "group.name", e.g. "query.numbers"; stable, for --rule
  std::string statement;  ///< one line, the rule in short (CONTRACT.md section 11's table)
  std::string section;    ///< the CONTRACT.md section(s), e.g. "3" or "2, 6"
  std::function<void(RuleContext&)> check;
  /// The optional profile whose behaviour the rule checks (e.g. "no-keep-alive"); empty: every
  /// plugin must pass the rule. Against a plugin that does not implement the profile the rule
  /// is skipped, not failed: the worker refuses such a profile before create() (section 1).
  std::string profile = {};
  /// The sentence(s) of CONTRACT.md the rule checks, word for word (contractCitation(id));
  /// contractRules() fills it in.
  std::string citation = {};
  /// The rule's requests make nested calls, so it runs once more for each client profile the
  /// plugin lists (ruleRuns in rules.hpp); contractRules() fills it in.
  bool nested = false;
  /// The contract exception that covers the rule (plugin.h's BENCHD_CONTRACT_EXCEPTION_*, by
  /// name, e.g. "stack-framing"); empty: no exception does. contractRules() fills it in.
  std::string exception = {};
};

/// The outcome of one rule against one plugin.
struct RuleOutcome {
  bool passed = false;
  /// Not checked: the rule is about an optional profile the plugin does not implement. Neither
  /// a pass nor a failure; `reason` says why.
  bool skipped = false;
  /// Did not hold, but the plugin declares the contract exception that covers the rule
  /// (Rule::exception) and nothing failed strictly (StrictRuleFailure): its HTTP stack decides
  /// this, and says so. Not a failure; `reason` says what differed.
  bool deviated = false;
  std::string reason;  ///< empty when passed
  std::chrono::milliseconds took{0};
};

/// Runs `rule`'s check against `plugin`, or skips it when the rule's profile is not among the
/// plugin's `implemented_profiles`. A RuleFailure is a failure with its reason, or a deviation
/// when the plugin declares the rule's exception (only a RuleFailure: a check that could not
/// complete is a failure either way); any other
/// exception (a connection refused, a worker that would not start) is a failure whose reason
/// says so. Never throws.
RuleOutcome checkRule(const Rule& rule, const PluginUnderTest& plugin);

}  // namespace benchd::conformance
