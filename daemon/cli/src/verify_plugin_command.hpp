#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd verify-plugin PATH [--rule ID]... [--json] [--threads N] [--full-corpus]` and
/// `benchd verify-plugin --list`: checks the plugin file PATH against every rule of the plugin
/// contract (benchd::conformance::contractRules(), the list the in-tree conformance suite runs),
/// each in benchd-workers of its own, and prints each rule with pass or fail and the reason.
/// Exits 0 when every rule checked passed, 1 when one failed or the plugin could not be loaded,
/// 2 for bad arguments.
Subcommand verifyPluginSubcommand();

}  // namespace benchd::cli
