// The standings as `benchd run` and `benchd winners` print them (one formatter for both).
#include <benchd/results/results_table.hpp>
#include <benchd/results/standings_text.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace benchd::results {
namespace {

WinnersGrid threeScenarios() {
  return computeWinners(
      readResultsCsv("scenario,approach,requests_error,latency_millis_p50,requests_per_second_max\n"
                     "s1,callbacks-asio,0,101,5.40\n"
                     "s1,threads-poco,0,202,5.40\n"
                     "s2,callbacks-asio,4,3,1\n"
                     "s2,threads-poco,2,2,1\n"
                     "s3,callbacks-asio,0,1,2\n",
                     "t.csv"));
}

TEST(StandingsTextTest, UnconfirmedLeadsSayTheyWereNotTested) {
  WinnersGrid grid = threeScenarios();
  grid.rule = "original";
  grid.rule_note = "Unconfirmed leads.";
  std::ostringstream out;
  writeStandingsText(out, grid);
  EXPECT_EQ(out.str(),
            "winners over 9 contests (rule original, unconfirmed leads: not tested):\n"
            "  (1) callbacks-asio: 4 wins, 44 %\n"
            "  (2) threads-poco: 0 wins, 0 %\n"
            "  no winner: 5, 56 % (5 draws, 0 with no significant difference)\n"
            "Unconfirmed leads.\n");
}

TEST(StandingsTextTest, AConfirmedGridStatesItsExpectedFalseWinners) {
  WinnersGrid grid = threeScenarios();
  grid.rule = "significant";
  grid.confirmed = true;
  grid.undecided = 2;
  grid.draws = 3;
  grid.expected_false_winners = 0.1;
  grid.rule_note = "Tested.";
  std::ostringstream out;
  writeStandingsText(out, grid);
  const std::string text = out.str();
  EXPECT_TRUE(text.starts_with("winners over 9 contests (rule significant):\n")) << text;
  EXPECT_NE(text.find("  no winner: 5, 56 % (3 draws, 2 with no significant difference); "
                      "expected false winners: at most 0.10\nTested.\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace benchd::results
