#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd agents add|list|remove`: the agents this host trusts as a coordinator, in
/// <state_dir>/agents/known_agents with a private copy of each agent's token beside it.
Subcommand agentsSubcommand();

}  // namespace benchd::cli
