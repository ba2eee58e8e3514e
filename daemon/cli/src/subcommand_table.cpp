#include "subcommand_table.hpp"

#include <benchd/common/usage_error.hpp>

#include <exception>
#include <iostream>

namespace benchd::cli {

void SubcommandTable::add(Subcommand subcommand) {
  subcommands_.push_back(std::move(subcommand));
}

const Subcommand* SubcommandTable::find(std::string_view name) const {
  for (const Subcommand& subcommand : subcommands_) {
    if (subcommand.name == name) {
      return &subcommand;
    }
  }
  return nullptr;
}

std::string SubcommandTable::overview() const {
  std::string text =
      "usage: benchd <command> [options]\n"
      "\n"
      "Benchmarks server concurrency approaches.\n"
      "\n"
      "Commands:\n";
  for (const Subcommand& subcommand : subcommands_) {
    text += "  " + subcommand.name +
            std::string(subcommand.name.size() < 15 ? 15 - subcommand.name.size() : 1, ' ') +
            subcommand.summary + "\n";
  }
  text +=
      "\n"
      "'benchd help <command>' or 'benchd <command> --help' describes a command.\n";
  return text;
}

int SubcommandTable::dispatch(int argc, const char* const* argv) const {
  std::vector<std::string_view> arguments(argv + 1, argv + argc);
  if (arguments.empty()) {
    std::cerr << "benchd: missing command\n\n" << overview();
    return common::kExitUsage;
  }
  const std::string_view first = arguments.front();
  if (first == "--help" || first == "-h") {
    std::cout << overview();
    return 0;
  }
  if (first == "--version") {
    std::cout << "benchd " << BENCHD_VERSION << "\n";
    return 0;
  }
  if (first == "help") {
    if (arguments.size() < 2) {
      std::cout << overview();
      return 0;
    }
    if (const Subcommand* subcommand = find(arguments[1])) {
      std::cout << subcommand->usage;
      return 0;
    }
    std::cerr << "benchd: unknown command '" << arguments[1] << "'\n\n" << overview();
    return common::kExitUsage;
  }
  const Subcommand* subcommand = find(first);
  if (subcommand == nullptr) {
    std::cerr << "benchd: unknown command '" << first << "'\n\n" << overview();
    return common::kExitUsage;
  }
  const std::span<const std::string_view> rest(arguments.data() + 1, arguments.size() - 1);
  for (const std::string_view argument : rest) {
    if (argument == "--help" || argument == "-h") {
      std::cout << subcommand->usage;
      return 0;
    }
  }
  try {
    return subcommand->run(rest);
  } catch (const common::UsageError& error) {
    std::cerr << "benchd " << subcommand->name << ": " << error.what() << "\n\n"
              << subcommand->usage;
    return common::kExitUsage;
  } catch (const std::exception& error) {
    std::cerr << "benchd " << subcommand->name << ": error: " << error.what() << "\n";
    return 1;
  }
}

}  // namespace benchd::cli
