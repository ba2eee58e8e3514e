#pragma once
// The rules of the plugin contract (plugins/sdk/CONTRACT.md), in the order `benchd
// verify-plugin` checks them: the one list both it and the in-tree conformance suite run.

#include <benchd/conformance/rule.hpp>

#include <string_view>
#include <vector>

namespace benchd::conformance {

/// Every rule, ids unique.
const std::vector<Rule>& contractRules();

/// The rules whose id is `id_or_prefix` or starts with it ("query" selects query.numbers,
/// query.ranges, ...), in list order; empty when none matches.
std::vector<const Rule*> selectRules(std::string_view id_or_prefix);

}  // namespace benchd::conformance
