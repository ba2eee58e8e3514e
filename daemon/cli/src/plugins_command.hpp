#pragma once

#include "subcommand_table.hpp"

namespace benchd::cli {

/// `benchd plugins [--plugin-dir DIR]... [--json]`: inspects every plugin in the search folders
/// (runner::inspectPlugins) and prints the folders searched, the accepted plugins and the
/// rejected ones with the reason, as text or as one JSON document. Exits 0 even when plugins
/// are rejected; 1 when the search itself cannot be made (a missing --plugin-dir folder, no
/// benchd-worker), 2 for bad arguments.
Subcommand pluginsSubcommand();

}  // namespace benchd::cli
