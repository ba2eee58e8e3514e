#pragma once
// The rules of the plugin contract (plugins/sdk/CONTRACT.md), in the order `benchd
// verify-plugin` checks them: the one list both it and the in-tree conformance suite run.

#include <benchd/conformance/rule.hpp>

#include <string_view>
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

}  // namespace benchd::conformance
