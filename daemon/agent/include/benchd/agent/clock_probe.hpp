#pragma once

#include <benchd/agent/agent_client.hpp>
#include <benchd/agent/clock_offset.hpp>

namespace benchd::agent {

/// Measures `client`'s agent's clock against this one: `rounds` GET /api/v1/agent/clock on
/// the client's kept-alive connection (its first call, which may connect, is not counted), then
/// estimateClockOffset. Throws AgentError, or std::runtime_error naming the agent when an answer
/// lacks its stamps.
[[nodiscard]] ClockOffset measureClockOffset(AgentClient& client, int rounds = 16);

}  // namespace benchd::agent
