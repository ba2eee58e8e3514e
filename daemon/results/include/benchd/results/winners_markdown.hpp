#pragma once

#include <benchd/results/winners.hpp>

#include <iosfwd>
#include <string>

namespace benchd::results {

/// The winners grid as Markdown, for results.md and the terminal. Renders a WinnersGrid; ranks
/// nothing itself. No heading of its own: the caller places it under one.
///
/// Standings, in rank order, then the "no winner" line when there were draws:
///
///   | rank | approach | wins | share |
///   |---:|---|---:|---:|
///   | 1 | loom-netty | 109 | 38 % |
///   | | no winner (draws) | 64 | 22 % |
///
///   286 contests: 26 metrics × 11 scenarios.
///
/// The grid: one row per metric (↑ higher is better, ↓ lower), one column per scenario. A cell
/// is the winner, its value as results.csv holds it and the cell's alpha (the original's colour
/// saturation, a measure of the lead): `loom-netty 101 (.50)`, `loom-netty 5.40 (1.0)`. A draw
/// is `draw 100` (the tied value) or `draw E` when the top two (or the only approach) had
/// errors; an empty cell (the approach set did not run that scenario) is `–`. Values of an
/// approach with errors carry an `E` suffix. '|' in names is escaped. Below the grid, when any
/// run failed (WinnersGrid::incomplete), writeIncompleteMarkdown's list.
void writeWinnersMarkdown(std::ostream& out, const WinnersGrid& grid);
/// writeWinnersMarkdown into a string.
[[nodiscard]] std::string winnersMarkdown(const WinnersGrid& grid);

/// The standings table (and the contests line) alone.
void writeStandingsMarkdown(std::ostream& out, const WinnersGrid& grid);
/// The metric × scenario table alone.
void writeWinnersGridMarkdown(std::ostream& out, const WinnersGrid& grid);

/// The (scenario, approach)s with failed runs, one line each, e.g.
///   - many × threads-asio: **OOM — did not complete** in 1 of 1 runs (cap 16 MiB, peak 16 MiB,
///     signal 9 (SIGKILL))
///   - many × coroutines-asio: **failed** in 1 of 10 runs: exited with exit code 4
/// Nothing when there are none.
void writeIncompleteMarkdown(std::ostream& out, const WinnersGrid& grid);
/// An incomplete result's outcome as the grid shows it: "OOM — did not complete (cap 16 MiB,
/// peak 16 MiB, ...)" (from the reason's kOutOfMemoryOutcome on) or "failed".
[[nodiscard]] std::string incompleteOutcomeText(const IncompleteResult& result);

/// A cell as the grid shows it (see writeWinnersMarkdown), unescaped.
[[nodiscard]] std::string winnersCellText(const WinnersCell& cell);
/// An alpha as the cell shows it: ".50", ".07", ".00", "1.0".
[[nodiscard]] std::string formatAlpha(double alpha);

}  // namespace benchd::results
