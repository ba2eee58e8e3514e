#pragma once

#include <benchd/http/router.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace benchd::agent {

/// What an agent says about itself at GET /api/v1/agent.
struct AgentIdentity {
  std::string benchd_version;
  std::string hostname;
  unsigned cpus = 0;
  std::vector<std::string> roles;  ///< agent_roles: server, generator, database (may be empty)
};

/// The agent protocol's version: a coordinator refuses an agent that speaks another.
inline constexpr int kAgentProtocol = 1;

/// Adds the routes every `benchd serve` answers as an agent, all behind the token:
/// GET /api/v1/agent (identity, agentProtocol, histogramLayout, roles) and
/// GET /api/v1/agent/clock (receivedEpochMicros and sentEpochMicros, stamped in the handler,
/// for estimateClockOffset). Handlers are thread-safe.
void addAgentRoutes(http::Router& router, const AgentIdentity& identity);

}  // namespace benchd::agent
