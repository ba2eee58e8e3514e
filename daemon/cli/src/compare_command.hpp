#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd compare BEFORE AFTER`: the before/after report of two results.csv files (or folders
/// holding one) as Markdown, on stdout or into a file (benchd::results::compareResults).
Subcommand compareSubcommand();

}  // namespace benchd::cli
