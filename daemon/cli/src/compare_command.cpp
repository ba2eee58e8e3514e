#include "compare_command.hpp"

#include "results_file.hpp"

#include <benchd/common/usage_error.hpp>
#include <benchd/results/comparison.hpp>
#include <benchd/results/results_table.hpp>

#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace benchd::cli {
namespace {

namespace fs = std::filesystem;

struct CompareOptions {
  std::string before;
  std::string after;
  double threshold_percent = results::kDefaultChangeThresholdPercent;
  std::optional<std::string> output;
};

std::string compareUsage() {
  return "usage: benchd compare BEFORE AFTER [--threshold PCT] [-o OUT.md]\n"
         "\n"
         "Compares two benchmark results as a Markdown report: throughput (requests_per_second_*)\n"
         "and latency (latency_millis_*) of every scenario and approach present in both, the %\n"
         "change of each, improved / regressed / neutral against the threshold, and the mean and\n"
         "standard deviation of the changes. Repeated rows of a scenario and approach are\n"
         "averaged; with at least 4 runs on each side they are tested instead: a change counts\n"
         "when it is significantly beyond the threshold (Mann-Whitney U against the runs before\n"
         "moved by the threshold, p < 0.05; '~' otherwise), shown with its 95 % interval.\n"
         "\n"
         "  BEFORE, AFTER         a results.csv file, or a results folder (its\n"
         "                        results-runs.csv when there is one, else its results.csv)\n"
         "  --threshold PCT       a change beyond +-PCT percent counts (default 2.0)\n"
         "  -o, --output OUT.md   write the report there instead of to stdout\n"
         "  --help                this text\n"
         "\n"
         "Exit codes: 0 report written, 1 a file could not be read or written, 2 bad arguments.\n";
}

double parseThreshold(std::string_view text) {
  double value = 0.0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value) || value < 0.0) {
    throw common::UsageError("--threshold: expected a non-negative percentage such as 2.5, got '" +
                             std::string(text) + "'");
  }
  return value;
}

CompareOptions parseCompareOptions(std::span<const std::string_view> arguments) {
  CompareOptions options;
  std::vector<std::string_view> positional;
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view argument = arguments[i];
    if (argument == "--threshold" || argument == "-o" || argument == "--output") {
      if (i + 1 >= arguments.size()) {
        throw common::UsageError(std::string(argument) + ": missing value");
      }
      const std::string_view value = arguments[++i];
      if (argument == "--threshold") {
        options.threshold_percent = parseThreshold(value);
      } else if (value.empty()) {
        throw common::UsageError(std::string(argument) + ": empty file name");
      } else {
        options.output = std::string(value);
      }
    } else if (argument.starts_with("-") && argument.size() > 1) {
      throw common::UsageError("unknown option '" + std::string(argument) + "'");
    } else {
      positional.push_back(argument);
    }
  }
  if (positional.size() != 2) {
    throw common::UsageError("expected BEFORE and AFTER, got " + std::to_string(positional.size()) +
                             (positional.size() == 1 ? " argument" : " arguments"));
  }
  options.before = positional[0];
  options.after = positional[1];
  return options;
}

std::string modificationTime(const fs::path& path) {
  std::error_code error;
  const fs::file_time_type written = fs::last_write_time(path, error);
  if (error) {
    return {};
  }
  const std::time_t seconds = std::chrono::system_clock::to_time_t(
      std::chrono::time_point_cast<std::chrono::system_clock::duration>(
          std::chrono::file_clock::to_sys(written)));
  std::tm local{};
  if (::localtime_r(&seconds, &local) == nullptr) {
    return {};
  }
  char text[32];
  const std::size_t length = std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &local);
  return {text, length};
}

int runCompare(std::span<const std::string_view> arguments) {
  const CompareOptions options = parseCompareOptions(arguments);
  const fs::path before_path = resultsFileOf(options.before);
  const fs::path after_path = resultsFileOf(options.after);
  const results::ResultsTable before = results::readResultsCsvFile(before_path);
  const results::ResultsTable after = results::readResultsCsvFile(after_path);
  const results::Comparison comparison =
      results::compareResults(before, after, options.threshold_percent);
  const results::ComparisonSource before_source{before_path.string(),
                                                modificationTime(before_path)};
  const results::ComparisonSource after_source{after_path.string(), modificationTime(after_path)};

  if (!options.output) {
    results::writeComparisonMarkdown(std::cout, comparison, before_source, after_source);
    std::cout.flush();
    return std::cout ? 0 : 1;
  }
  std::ofstream out(*options.output, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw std::runtime_error("cannot write '" + *options.output + "'");
  }
  results::writeComparisonMarkdown(out, comparison, before_source, after_source);
  out.close();
  if (!out) {
    throw std::runtime_error("cannot write '" + *options.output + "'");
  }
  return 0;
}

}  // namespace

Subcommand compareSubcommand() {
  return {"compare", "compare two results.csv files (before/after) as a Markdown report",
          compareUsage(), runCompare};
}

}  // namespace benchd::cli
