// benchd: subcommand dispatch. Each subcommand lives in its own files and is registered here.
#include "agents_command.hpp"
#include "compare_command.hpp"
#include "load_command.hpp"
#include "plugins_command.hpp"
#include "run_command.hpp"
#include "serve_command.hpp"
#include "subcommand_table.hpp"
#include "verify_plugin_command.hpp"
#include "winners_command.hpp"

int main(int argc, char** argv) {
  benchd::cli::SubcommandTable commands;
  commands.add(benchd::cli::runSubcommand());
  commands.add(benchd::cli::serveSubcommand());
  commands.add(benchd::cli::loadSubcommand());
  commands.add(benchd::cli::pluginsSubcommand());
  commands.add(benchd::cli::compareSubcommand());
  commands.add(benchd::cli::winnersSubcommand());
  commands.add(benchd::cli::verifyPluginSubcommand());
  commands.add(benchd::cli::agentsSubcommand());
  return commands.dispatch(argc, argv);
}
