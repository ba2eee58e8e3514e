#include "winners_command.hpp"

#include "results_file.hpp"
#include "run_options.hpp"

#include <benchd/common/usage_error.hpp>
#include <benchd/results/metric_format.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/standings_text.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/results/winners_markdown.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <span>
#include <string>
#include <vector>

namespace benchd::cli {
namespace {

struct WinnersOptions {
  std::string file;
  std::vector<std::string> approaches;
  results::WinnerRule rule = results::WinnerRule::kSignificant;
  bool grid = false;
};

std::string winnersUsage() {
  return "usage: benchd winners FILE [--winners RULE] [-a a,b] [--grid]\n"
         "\n"
         "Ranks a results file as `benchd run` does and prints the standings, how many cells\n"
         "have no winner, and the rule's note (runs, thresholds, expected false winners).\n"
         "Rows with the same scenario and approach are runs of one pair (results-runs.csv of a\n"
         "run with --repeat); results.csv of the original study ranks as there with\n"
         "--winners original.\n"
         "\n"
         "  FILE             a results-runs.csv or results.csv, or a results folder (its\n"
         "                   results-runs.csv when there is one, else its results.csv)\n"
         "  --winners RULE   significant (default) or original\n"
         "  -a a,b           the approach set, in the order that breaks rank ties (default:\n"
         "                   every approach of the file, sorted)\n"
         "  --grid           print the whole grid as Markdown too\n"
         "  --help           this text\n"
         "\n"
         "Exit codes: 0 printed, 1 the file could not be read, 2 bad arguments.\n";
}

WinnersOptions parseWinnersOptions(std::span<const std::string_view> arguments) {
  WinnersOptions options;
  bool have_file = false;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view argument = arguments[i];
    if (argument == "--grid") {
      options.grid = true;
      continue;
    }
    if (argument == "--winners" || argument == "-a") {
      if (i + 1 >= arguments.size()) {
        throw common::UsageError(std::string(argument) + ": missing value");
      }
      const std::string_view value = arguments[++i];
      if (argument == "-a") {
        options.approaches = splitApproachList(argument, value);
        continue;
      }
      const auto rule = results::winnerRuleFromName(value);
      if (!rule) {
        throw common::UsageError("--winners: expected 'significant' or 'original', got '" +
                                 std::string(value) + "'");
      }
      options.rule = *rule;
      continue;
    }
    if (argument.starts_with("-") && argument.size() > 1) {
      throw common::UsageError("unknown option '" + std::string(argument) + "'");
    }
    if (have_file) {
      throw common::UsageError("unexpected argument '" + std::string(argument) +
                               "' (one file only)");
    }
    options.file = argument;
    have_file = true;
  }
  if (!have_file) {
    throw common::UsageError("expected a results file or folder");
  }
  return options;
}

int printWinners(std::span<const std::string_view> arguments) {
  const WinnersOptions options = parseWinnersOptions(arguments);
  const results::ResultsTable table = results::readResultsCsvFile(resultsFileOf(options.file));
  results::DecisionSettings settings;
  settings.rule = options.rule;
  const results::WinnersGrid grid = results::decideWinners(table, options.approaches, settings);
  results::writeStandingsText(std::cout, grid);
  // The typical lead between the top two: in an A/A file (one plugin under two names) this is
  // the noise a single-run comparison would call a win.
  std::vector<double> leads;
  for (const auto& row : grid.cells) {
    for (const results::WinnersCell& cell : row) {
      if (cell.ranked.size() >= 2 && std::isfinite(cell.lead) && !cell.both_top_errors) {
        leads.push_back(cell.lead);
      }
    }
  }
  if (!leads.empty()) {
    std::sort(leads.begin(), leads.end());
    std::cout << "median lead of the top two: "
              << results::formatMetricValue(100.0 * leads[leads.size() / 2]) << " % over "
              << leads.size() << " cells; 90th percentile "
              << results::formatMetricValue(100.0 * leads[leads.size() * 9 / 10]) << " %\n";
  }
  if (options.grid) {
    std::cout << "\n";
    results::writeWinnersMarkdown(std::cout, grid);
  }
  return 0;
}

}  // namespace

Subcommand winnersSubcommand() {
  return {"winners", "rank a results file (repeated runs tested for significance)", winnersUsage(),
          printWinners};
}

}  // namespace benchd::cli
