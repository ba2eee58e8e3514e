#include "rule_groups.hpp"

#include <benchd/conformance/rules.hpp>
#include <benchd/microservice/service_profile.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace benchd::conformance {

const std::vector<Rule>& contractRules() {
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> all;
    for (auto group :
         {endpointRules, badInputRules, answerRules, framingRules, connectionRules, nestedCallRules,
          lifetimeRules, hostileRules, stopRules, tlsRules, http2Rules}) {
      for (Rule& rule : group())
        all.push_back(std::move(rule));
    }
    std::set<std::string> ids;
    for (Rule& rule : all) {
      if (!ids.insert(rule.id).second)
        throw std::logic_error("two conformance rules have the id " + rule.id);
      rule.citation = contractCitation(rule.id);
      const auto& nested = nestedCallRuleIds();
      rule.nested = std::find(nested.begin(), nested.end(), rule.id) != nested.end();
      for (const auto& [id, exception] : exceptedRuleIds()) {
        if (id == rule.id)
          rule.exception = exception;
      }
    }
    for (const auto& [id, exception] : exceptedRuleIds()) {
      if (!ids.contains(std::string(id)))
        throw std::logic_error("the rule " + std::string(id) + " of " + std::string(exception) +
                               " is not a rule");
    }
    for (const std::string_view id : nestedCallRuleIds()) {
      if (!ids.contains(std::string(id)))
        throw std::logic_error("the nested-call rule " + std::string(id) + " is not a rule");
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

const std::vector<std::string_view>& nestedCallRuleIds() {
  // The rules whose requests carry a delayCallDepth above 0 (CONTRACT.md section 11).
  static const std::vector<std::string_view> ids = {
      "endpoints.epoch-millis",     "endpoints.get-movies",
      "endpoints.post-echoes",      "endpoints.read-write-cycle",
      "order.body-after-wait",      "query.ranges",
      "connections.keep-alive",     "connections.no-keep-alive",
      "nested.outwaits-the-margin", "nested.no-resend",
      "nested.idle-pool-closed",    "lifetime.hung-up-nested",
      "lifetime.half-close",        "lifetime.pipelined",
      "stop.drains-in-flight",      "stop.timeout"};
  return ids;
}

const std::vector<std::pair<std::string_view, std::string_view>>& exceptedRuleIds() {
  // CONTRACT.md, "Contract exceptions": what each exception lets a plugin's stack decide.
  static const std::vector<std::pair<std::string_view, std::string_view>> ids = {
      {"order.checks", "stack-framing"},
      {"framing.malformed", "stack-framing"},
      {"framing.length-over-limit", "stack-framing"},
      {"framing.content-length", "stack-framing"},
      {"framing.length-with-chunked", "stack-framing"},
      {"framing.chunks", "stack-framing"},
      {"framing.unparsed-limit", "stack-framing"},
      {"hostile.first-answers", "stack-framing"},
      {"hostile.survives", "stack-framing"},
      {"lifetime.header-deadline", "idle-header-timeout"},
      {"tls.handshake-deadline", "idle-header-timeout"},
  };
  return ids;
}

std::string RuleRun::id() const {
  return client_profile.empty() ? rule->id : rule->id + "[" + client_profile + "]";
}

std::vector<RuleRun> ruleRuns(const std::vector<const Rule*>& rules,
                              const std::vector<std::string>& implemented_profiles,
                              std::string_view only_client) {
  std::vector<std::string> clients;
  for (const std::string_view client : microservice::kClientProfiles) {
    const bool listed = std::find(implemented_profiles.begin(), implemented_profiles.end(),
                                  client) != implemented_profiles.end();
    if (listed && (only_client.empty() || only_client == client))
      clients.emplace_back(client);
  }
  std::vector<RuleRun> runs;
  for (const Rule* rule : rules) {
    if (only_client.empty())
      runs.push_back({rule, {}});
    if (!rule->nested)
      continue;
    for (const std::string& client : clients)
      runs.push_back({rule, client});
  }
  return runs;
}

}  // namespace benchd::conformance
