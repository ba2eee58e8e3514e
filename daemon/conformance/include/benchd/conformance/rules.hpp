#pragma once
// The rules of the plugin contract (plugins/sdk/CONTRACT.md), in the order `benchd
// verify-plugin` checks them: the one list both it and the in-tree conformance suite run.

#include <benchd/conformance/rule.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace benchd::conformance {

/// Every rule, ids unique, each with its citation.
const std::vector<Rule>& contractRules();

/// The sentence(s) of CONTRACT.md the rule `rule_id` checks, word for word as the contract
/// says them (Markdown included; several sentences joined by " ... " in contract order). Throws
/// std::logic_error for an id without one: every rule cites the contract.
std::string_view contractCitation(std::string_view rule_id);

/// The rules whose id is `id_or_prefix` or starts with it ("query" selects query.numbers,
/// query.ranges, ...), in list order; empty when none matches.
std::vector<const Rule*> selectRules(std::string_view id_or_prefix);

/// The ids of the rules whose requests make nested calls (Rule::nested): each is run with the
/// plugin's native client and once with each client profile the plugin lists.
const std::vector<std::string_view>& nestedCallRuleIds();

/// The rules a contract exception covers, as (rule id, exception name) (Rule::exception): what
/// a plugin that declares the exception may do differently (CONTRACT.md, "Contract
/// exceptions").
const std::vector<std::pair<std::string_view, std::string_view>>& exceptedRuleIds();

/// One check: a rule, run with a client profile or with the plugin's native client.
struct RuleRun {
  const Rule* rule = nullptr;
  std::string client_profile;  ///< empty: the native client

  /// The rule's id, then "[client-curl]" when it runs with a client profile.
  [[nodiscard]] std::string id() const;
};

/// The runs of `rules` against a plugin that implements `implemented_profiles`, in rule order:
/// each rule once with the native client, and each nested rule once more per client profile
/// listed (microservice::kClientProfiles order). With `only_client` (a client profile), only the
/// nested rules, each with that client alone.
std::vector<RuleRun> ruleRuns(const std::vector<const Rule*>& rules,
                              const std::vector<std::string>& implemented_profiles,
                              std::string_view only_client = {});

}  // namespace benchd::conformance
