#include <benchd/results/winners_markdown.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace benchd::results {
namespace {

TEST(WinnersMarkdownTest, AlphaFormat) {
  EXPECT_EQ(formatAlpha(0.5), ".50");
  EXPECT_EQ(formatAlpha(0.07), ".07");
  EXPECT_EQ(formatAlpha(0.0), ".00");
  EXPECT_EQ(formatAlpha(1.0), "1.0");
}

TEST(WinnersMarkdownTest, StandingsAndGrid) {
  const WinnersGrid grid = computeWinners(
      readResultsCsv("scenario,approach,requests_error,latency_millis_p50,requests_per_second_max\n"
                     "s1,callbacks-asio,0,101,5.40\n"
                     "s1,threads|poco,0,202,5.40\n"
                     "s2,callbacks-asio,4,3,1\n"
                     "s2,threads|poco,2,2,1\n"
                     "s3,callbacks-asio,0,1,2\n",
                     "t.csv"));
  std::ostringstream out;
  writeWinnersMarkdown(out, grid);
  EXPECT_EQ(out.str(),
            "| rank | approach | wins | share |\n"
            "|---:|---|---:|---:|\n"
            "| 1 | callbacks-asio | 4 | 44 % |\n"
            "| 2 | threads\\|poco | 0 | 0 % |\n"
            "| | no winner (draws) | 5 | 56 % |\n"
            "\n"
            "9 contests: 3 metrics × 3 scenarios.\n"
            "\n"
            "Cell: the winner, its value and, in brackets, the lead's colour saturation (0 to 1; "
            "small means a narrow win). `E`: that approach had request errors; it ranks below "
            "every error-free approach in that scenario.\n"
            "\n"
            "| metric | s1 | s2 | s3 |\n"
            "|---|---|---|---|\n"
            "| requests_error ↓ | draw 0 | draw E | callbacks-asio 0 (.00) |\n"
            "| latency_millis_p50 ↓ | callbacks-asio 101 (.97) | draw E | callbacks-asio 1 (.00) "
            "|\n"
            "| requests_per_second_max ↑ | draw 5.40 | draw E | callbacks-asio 2 (.00) |\n");
}

TEST(WinnersMarkdownTest, CellTexts) {
  WinnersCell win;
  win.outcome = CellOutcome::kWin;
  win.winner = "a";
  win.ranked = {{"a", 14.4, "14.4", false}, {"b", 20.0, "20", false}};
  win.alpha = 1.0;
  EXPECT_EQ(winnersCellText(win), "a 14.4 (1.0)");

  WinnersCell single_error_draw;
  single_error_draw.outcome = CellOutcome::kDraw;
  single_error_draw.both_top_errors = true;
  single_error_draw.ranked = {{"a", 3.0, "3", true}};
  EXPECT_EQ(winnersCellText(single_error_draw), "draw E");

  WinnersCell equal_draw;
  equal_draw.outcome = CellOutcome::kDraw;
  equal_draw.ranked = {{"a", 0.0, "", false}, {"b", 0.0, "0", true}};
  EXPECT_EQ(winnersCellText(equal_draw), "draw 0");  // an empty cell shows as 0

  EXPECT_EQ(winnersCellText(WinnersCell{}), "–");
}

TEST(WinnersMarkdownTest, EmptyCellsAreCountedInTheContestsLine) {
  const WinnersGrid grid =
      computeWinners(readResultsCsv("scenario,approach,m\ns1,a,1\ns2,b,1\n", "t.csv"), {"a"});
  std::ostringstream out;
  writeStandingsMarkdown(out, grid);
  EXPECT_NE(out.str().find("1 contest: 1 metric × 2 scenarios, 1 empty (no approach of the set "
                           "ran the scenario).\n"),
            std::string::npos)
      << out.str();
  std::ostringstream cells;
  writeWinnersGridMarkdown(cells, grid);
  EXPECT_NE(cells.str().find("| m ↓ | a 1 (.00) | – |"), std::string::npos) << cells.str();
}

}  // namespace
}  // namespace benchd::results
