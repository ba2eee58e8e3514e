#include "rule_groups.hpp"

#include <benchd/conformance/rules.hpp>

#include <set>
#include <stdexcept>

namespace benchd::conformance {

const std::vector<Rule>& contractRules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> all;
    for (auto group : {endpointRules, badInputRules, answerRules, framingRules, connectionRules,
                       nestedCallRules, lifetimeRules, hostileRules, stopRules}) {
      for (Rule& rule : group())
        all.push_back(std::move(rule));
    }
    std::set<std::string> ids;
    for (Rule& rule : all) {
      if (!ids.insert(rule.id).second)
        throw std::logic_error("two conformance rules have the id " + rule.id);
      rule.citation = contractCitation(rule.id);
    }
    return all;
  }();
  return rules;
}

std::vector<const Rule*> selectRules(std::string_view id_or_prefix) {
  std::vector<const Rule*> selected;
  for (const Rule& rule : contractRules()) {
    if (rule.id.starts_with(id_or_prefix))
      selected.push_back(&rule);
  }
  return selected;
}

}  // namespace benchd::conformance
