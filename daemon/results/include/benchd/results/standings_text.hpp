#pragma once

#include <benchd/results/winners.hpp>

#include <iosfwd>

namespace benchd::results {

/// A winners grid's standings as plain text for the terminal: what `benchd run` prints when it
/// ends and `benchd winners` prints for a results file. Renders a WinnersGrid; ranks nothing.
///
///   winners over 6 contests (rule significant):
///     (1) callbacks-asio: 2 wins, 33 %
///     (2) threads-poco: 0 wins, 0 %
///     no winner: 4, 67 % (1 draws, 3 with no significant difference); expected false
///     winners: at most 0.10   <- one line
///   <the grid's rule note>
///
/// "expected false winners" only for a confirmed grid; "unconfirmed leads: not tested" follows
/// the rule's name when the leads were not tested.
/// bench/results/aa-check.sh reads the "(rank) name: N wins" lines and the word before
/// "contests": keep them.
void writeStandingsText(std::ostream& out, const WinnersGrid& grid);

}  // namespace benchd::results
