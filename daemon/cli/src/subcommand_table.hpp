#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::cli {

/// One `benchd <name> ...` command.
struct Subcommand {
  std::string name;
  std::string summary;  ///< one line for the overview
  std::string usage;    ///< full help text, printed for --help and after a UsageError
  /// Runs the command with the arguments after its name; returns the exit code. Throws
  /// UsageError for bad arguments.
  std::function<int(std::span<const std::string_view> arguments)> run;
};

/// The subcommands of the benchd executable. Others register theirs with add() in main.cpp.
class SubcommandTable {
 public:
  void add(Subcommand subcommand);

  /// Dispatches argv: `benchd <subcommand> [args]`, `benchd help [subcommand]`, `benchd --help`,
  /// `benchd --version`. A UsageError (or an unknown subcommand) prints one "benchd[ name]: ..."
  /// line and the usage to stderr and returns common::kExitUsage; any other exception prints
  /// "benchd name: error: ..." and returns 1.
  int dispatch(int argc, const char* const* argv) const;

  /// The overview: every subcommand with its summary.
  [[nodiscard]] std::string overview() const;

 private:
  [[nodiscard]] const Subcommand* find(std::string_view name) const;

  std::vector<Subcommand> subcommands_;
};

}  // namespace benchd::cli
