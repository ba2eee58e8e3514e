#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd load`: runs one workload against a URL with the load engine and prints a summary
/// (text, or JSON with --json) on stdout and a progress line per second on stderr.
Subcommand loadSubcommand();

}  // namespace benchd::cli
