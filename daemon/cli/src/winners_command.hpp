#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd winners FILE`: the winners grid of a results file (every run of a repeated run in
/// results-runs.csv, or one row per pair in results.csv), under either rule.
Subcommand winnersSubcommand();

}  // namespace benchd::cli
