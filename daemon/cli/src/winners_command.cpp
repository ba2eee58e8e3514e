#include "winners_command.hpp"

#include "results_file.hpp"
#include "run_options.hpp"

#include <benchd/common/usage_error.hpp>
#include <benchd/results/metric_format.hpp>
#include <benchd/results/noise_thresholds.hpp>
#include <benchd/results/results_table.hpp>
#include <benchd/results/standings_text.hpp>
#include <benchd/results/winner_decision.hpp>
#include <benchd/results/winners_markdown.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace benchd::cli {
namespace {

struct WinnersOptions {
  std::string file;
  std::vector<std::string> approaches;
  results::WinnerRule rule = results::WinnerRule::kSignificant;
  bool grid = false;
  std::optional<std::string> thresholds_file;  ///< --thresholds FILE
  /// --measure-noise A,B: print the noise thresholds the A/A pair (A, B) shows instead.
  std::vector<std::string> measure_noise;
};

std::string winnersUsage() {
  return "usage: benchd winners FILE [--winners RULE] [-a a,b] [--grid] [--thresholds FILE]\n"
         "                      [--measure-noise A,B]\n"
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
         "  --thresholds FILE  decide with these noise thresholds (default: the folder's\n"
         "                   noise-thresholds.csv, the run's own, else the shipped ones)\n"
         "  --measure-noise A,B  print, as a thresholds file, the noise thresholds that the\n"
         "                   runs of A against its copy B show (an A/A pair)\n"
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
    if (argument == "--winners" || argument == "-a" || argument == "--thresholds" ||
        argument == "--measure-noise") {
      if (i + 1 >= arguments.size()) {
        throw common::UsageError(std::string(argument) + ": missing value");
      }
      const std::string_view value = arguments[++i];
      if (argument == "-a") {
        options.approaches = splitApproachList(argument, value);
        continue;
      }
      if (argument == "--thresholds") {
        options.thresholds_file = std::string(value);
        continue;
      }
      if (argument == "--measure-noise") {
        options.measure_noise = splitApproachList(argument, value);
        if (options.measure_noise.size() != 2) {
          throw common::UsageError(
              "--measure-noise: expected two approaches, an approach and "
              "its copy (A,A#2)");
        }
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

/// The thresholds to decide with: --thresholds FILE, else the run's own beside its results
/// (a results folder's noise-thresholds.csv), else the shipped ones.
results::NoiseThresholds thresholdsFor(const WinnersOptions& options) {
  if (options.thresholds_file) {
    return results::readNoiseThresholdsFile(*options.thresholds_file);
  }
  const std::filesystem::path beside =
      resultsFileOf(options.file).parent_path() / "noise-thresholds.csv";
  std::error_code error;
  if (std::filesystem::exists(beside, error)) {
    return results::readNoiseThresholdsFile(beside);
  }
  return results::shippedNoiseThresholds();
}

int printWinners(std::span<const std::string_view> arguments) {
  const WinnersOptions options = parseWinnersOptions(arguments);
  const std::filesystem::path file = resultsFileOf(options.file);
  const results::ResultsTable table = results::readResultsCsvFile(file);
  if (!options.measure_noise.empty()) {
    const std::string& a = options.measure_noise[0];
    const std::string& b = options.measure_noise[1];
    for (const std::string& name : options.measure_noise) {
      if (std::none_of(table.rows().begin(), table.rows().end(),
                       [&name](const results::ResultsRow& row) { return row.approach == name; })) {
        throw std::runtime_error(file.string() + " has no runs of '" + name + "'");
      }
    }
    results::writeNoiseThresholds(
        std::cout, results::measureNoiseThresholds(
                       table, a, b, results::shippedNoiseThresholds(),
                       "measured from " + a + " against " + b + " in " + file.string()));
    return 0;
  }
  results::DecisionSettings settings;
  settings.rule = options.rule;
  settings.noise = thresholdsFor(options);
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
