#include "markdown_text.hpp"

#include <benchd/results/metric_format.hpp>
#include <benchd/results/summary_row.hpp>
#include <benchd/results/winners_markdown.hpp>

#include <array>
#include <charconv>
#include <ostream>
#include <sstream>

namespace benchd::results {
namespace {

/// The value as results.csv holds it; an empty cell counts (and shows) as 0.
std::string valueText(const RankedResult& result) {
  std::string text = result.text.empty() ? formatMetricValue(result.value) : result.text;
  if (result.has_errors) {
    text += 'E';
  }
  return text;
}

}  // namespace

std::string formatAlpha(double alpha) {
  if (alpha >= 1.0) {
    return "1.0";
  }
  std::array<char, 32> buffer{};
  const auto printed = std::to_chars(buffer.data(), buffer.data() + buffer.size(),
                                     alpha < 0.0 ? 0.0 : alpha, std::chars_format::fixed, 2);
  std::string text(buffer.data(), printed.ptr);
  return text.substr(1);  // "0.50" → ".50"
}

/// With repeats, the median's interval after the value: " [low, high]".
std::string intervalText(const RankedResult& result) {
  if (result.runs < 2) {
    return {};
  }
  return " [" + formatMetricValue(result.low) + ", " + formatMetricValue(result.high) + "]";
}

std::string winnersCellText(const WinnersCell& cell) {
  switch (cell.outcome) {
    case CellOutcome::kEmpty:
      return "–";
    case CellOutcome::kDraw:
      return cell.both_top_errors ? "draw E" : "draw " + valueText(*cell.top());
    case CellOutcome::kUndecided:
      return "~ " + valueText(*cell.top()) + intervalText(*cell.top()) + " vs " +
             valueText(*cell.runnerUp()) + intervalText(*cell.runnerUp());
    case CellOutcome::kWin:
      break;
  }
  return cell.winner + " " + valueText(*cell.top()) + intervalText(*cell.top()) + " (" +
         formatAlpha(cell.alpha) + ")";
}

void writeStandingsMarkdown(std::ostream& out, const WinnersGrid& grid) {
  out << "| rank | approach | wins | share |\n"
      << "|---:|---|---:|---:|\n";
  for (const ApproachStanding& standing : grid.standings) {
    out << "| " << standing.rank << " | " << markdownCell(standing.approach) << " | "
        << standing.wins << " | " << standing.percent << " % |\n";
  }
  if (grid.draws + grid.undecided > 0) {
    out << "| | no winner ("
        << (grid.undecided > 0 ? "draws and no significant difference" : "draws") << ") | "
        << grid.draws + grid.undecided << " | " << grid.draw_percent << " % |\n";
  }
  out << "\n"
      << grid.contests << (grid.contests == 1 ? " contest" : " contests") << ": "
      << grid.metrics.size() << (grid.metrics.size() == 1 ? " metric" : " metrics") << " × "
      << grid.scenarios.size() << (grid.scenarios.size() == 1 ? " scenario" : " scenarios");
  const std::size_t empty = grid.metrics.size() * grid.scenarios.size() - grid.contests;
  if (empty > 0) {
    out << ", " << empty << " empty (no approach of the set ran the scenario)";
  }
  out << ".\n";
}

void writeWinnersGridMarkdown(std::ostream& out, const WinnersGrid& grid) {
  out << "| metric |";
  for (const std::string& scenario : grid.scenarios) {
    out << ' ' << markdownCell(scenario) << " |";
  }
  out << "\n|---|";
  for (std::size_t i = 0; i < grid.scenarios.size(); ++i) {
    out << "---|";
  }
  out << '\n';
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    out << "| " << markdownCell(grid.metrics[metric])
        << (grid.directions[metric] == Direction::kHigherIsBetter ? " ↑" : " ↓") << " |";
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      out << ' ' << markdownCell(winnersCellText(grid.cell(metric, scenario))) << " |";
    }
    out << '\n';
  }
}

void writeWinnersMarkdown(std::ostream& out, const WinnersGrid& grid) {
  if (!grid.rule_note.empty()) {
    out << (grid.confirmed ? "" : "**") << grid.rule_note << (grid.confirmed ? "" : "**") << "\n\n";
  }
  writeStandingsMarkdown(out, grid);
  out << "\nCell: the winner, its value";
  if (grid.max_runs > 1) {
    out << " (the median of its runs, then the 95 % interval of the median)";
  }
  out << " and, in brackets, the lead's colour saturation (0 to 1; small means a narrow win";
  if (grid.confirmed) {
    out << "; from the lower bound of the lead's interval";
  }
  out << ").";
  if (grid.confirmed) {
    out << " `~`: no significant difference between the top two, whose values follow.";
  }
  out << " `E`: that approach had request errors; it ranks below every error-free approach in "
         "that scenario.\n\n";
  writeWinnersGridMarkdown(out, grid);
  writeIncompleteMarkdown(out, grid);
}

std::string incompleteOutcomeText(const IncompleteResult& result) {
  if (!result.out_of_memory) {
    return "failed";
  }
  const std::size_t at = result.reason.find(kOutOfMemoryOutcome);
  return at == std::string::npos ? std::string(kOutOfMemoryOutcome) : result.reason.substr(at);
}

void writeIncompleteMarkdown(std::ostream& out, const WinnersGrid& grid) {
  if (grid.incomplete.empty()) {
    return;
  }
  out << "\nDid not complete (each ranked from its runs that did, or last when none did):\n\n";
  for (const IncompleteResult& result : grid.incomplete) {
    out << "- " << markdownCell(result.scenario) << " × " << markdownCell(result.approach) << ": ";
    if (result.out_of_memory) {
      const std::string outcome = incompleteOutcomeText(result);
      const std::size_t details = outcome.find(" (");
      out << "**" << outcome.substr(0, details) << "** in " << result.failed_runs << " of "
          << result.runs << (result.runs == 1 ? " run" : " runs")
          << (details == std::string::npos ? "" : outcome.substr(details)) << "\n";
    } else {
      out << "**failed** in " << result.failed_runs << " of " << result.runs
          << (result.runs == 1 ? " run" : " runs") << ": " << result.reason << "\n";
    }
  }
}

std::string winnersMarkdown(const WinnersGrid& grid) {
  std::ostringstream out;
  writeWinnersMarkdown(out, grid);
  return out.str();
}

}  // namespace benchd::results
