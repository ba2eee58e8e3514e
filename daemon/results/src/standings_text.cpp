#include <benchd/results/metric_format.hpp>
#include <benchd/results/standings_text.hpp>

#include <ostream>

namespace benchd::results {

void writeStandingsText(std::ostream& out, const WinnersGrid& grid) {
  out << "winners over " << grid.contests << " contests (rule " << grid.rule
      << (grid.confirmed ? "" : ", unconfirmed leads: not tested") << "):\n";
  for (const ApproachStanding& standing : grid.standings) {
    out << "  (" << standing.rank << ") " << standing.approach << ": " << standing.wins << " wins, "
        << standing.percent << " %\n";
  }
  out << "  no winner: " << grid.draws + grid.undecided << ", " << grid.draw_percent << " % ("
      << grid.draws << " draws, " << grid.undecided << " with no significant difference)";
  if (grid.confirmed) {
    out << "; expected false winners: at most " << formatMetricValue(grid.expected_false_winners);
  }
  out << "\n" << grid.rule_note << "\n";
}

}  // namespace benchd::results
