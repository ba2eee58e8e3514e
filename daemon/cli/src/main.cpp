// benchd: subcommand dispatch. Each subcommand lives in its own files and is registered here.
#include "load_command.hpp"
#include "subcommand_table.hpp"

int main(int argc, char** argv) {
  benchd::cli::SubcommandTable commands;
  commands.add(benchd::cli::loadSubcommand());
  return commands.dispatch(argc, argv);
}
