#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd run`: the main job (see run_options.cpp for the usage).
Subcommand runSubcommand();

}  // namespace benchd::cli
