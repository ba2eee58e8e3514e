#pragma once
// The rules, one function per group of CONTRACT.md, each in its own file; rules.cpp joins them
// in the order `benchd verify-plugin` runs them.

#include <benchd/conformance/rule.hpp>

#include <vector>

namespace benchd::conformance {

std::vector<Rule> endpointRules();    ///< rules_endpoints.cpp: section 2
std::vector<Rule> badInputRules();    ///< rules_query.cpp: sections 3, 4 (parameters, paths)
std::vector<Rule> answerRules();      ///< rules_answers.cpp: sections 4, 5, 9
std::vector<Rule> nestedCallRules();  ///< rules_nested.cpp: section 6
std::vector<Rule> framingRules();     ///< rules_framing.cpp: section 7 (framing, sizes)
std::vector<Rule> connectionRules();  ///< rules_connections.cpp: section 7 (keep-alive, load)
std::vector<Rule> lifetimeRules();    ///< rules_lifetime.cpp: sections 6, 7 (waits, deadlines)
std::vector<Rule> hostileRules();     ///< rules_hostile.cpp: section 7 (the hostile corpus)
std::vector<Rule> stopRules();        ///< rules_stop.cpp: section 8
std::vector<Rule> tlsRules();         ///< rules_tls.cpp: section 1 (the `tls` profile)
std::vector<Rule> http2Rules();       ///< rules_h2.cpp: section 1 (the `h2`, `h2c` profiles)

}  // namespace benchd::conformance
