#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd serve`: the daemon with its REST control API.
Subcommand serveSubcommand();

}  // namespace benchd::cli
