#include <benchd/results/winners.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace benchd::results {
namespace {

WinnersGrid winnersOf(const std::string& csv, const std::vector<std::string>& approaches = {}) {
  return computeWinners(readResultsCsv(csv, "test.csv"), approaches);
}

const WinnersCell& cellOf(const WinnersGrid& grid, std::string_view metric,
                          std::string_view scenario) {
  const auto m = std::find(grid.metrics.begin(), grid.metrics.end(), metric);
  const auto s = std::find(grid.scenarios.begin(), grid.scenarios.end(), scenario);
  EXPECT_NE(m, grid.metrics.end()) << metric;
  EXPECT_NE(s, grid.scenarios.end()) << scenario;
  return grid.cell(static_cast<std::size_t>(m - grid.metrics.begin()),
                   static_cast<std::size_t>(s - grid.scenarios.begin()));
}

std::vector<std::string> rankedApproaches(const WinnersCell& cell) {
  std::vector<std::string> names;
  for (const RankedResult& result : cell.ranked) {
    names.push_back(result.approach);
  }
  return names;
}

TEST(WinnersDirectionTest, ByLowerCasedPrefixWithErrorOverride) {
  EXPECT_EQ(metricPrefix("latency_millis_p50"), "latency");
  EXPECT_EQ(metricPrefix("Requests_ok"), "requests");
  EXPECT_EQ(metricPrefix("sockets"), "sockets");
  for (const char* higher : {"requests_ok", "requests_per_second_p50", "requests_per_second_max",
                             "sockets_avg", "sockets_max", "REQUESTS_ok", "requests"}) {
    EXPECT_EQ(metricDirection(higher), Direction::kHigherIsBetter) << higher;
  }
  for (const char* lower :
       {"requests_error", "sockets_error_count", "latency_millis_p99", "cpu_use_percent_avg",
        "ram_use_percent_max", "heap_mib_avg", "rss_mib_max", "garbage_collection_count",
        "platform_threads_avg", "os_threads_max", "network_kib_per_req_avg",
        "context_switches_per_request", "cpu_millis_per_request", "unknown_metric", "x"}) {
    EXPECT_EQ(metricDirection(lower), Direction::kLowerIsBetter) << lower;
  }
}

/// Winner vs runner-up → lead and alpha, from the original's test oracle
/// (docs/metrics-and-ranking.md#checks-against-the-original).
TEST(WinnersLeadTest, OracleVectors) {
  struct Vector {
    double winner;
    double runner_up;
    double lead;
    double alpha;
  };
  const Vector vectors[] = {
      {1.0, 0.5, 1.0, 1.0},            // higher better, 100 %
      {11.0, 10.0, 0.1, 0.5},          // higher better, 10 %
      {20.0, 21.0, 1.0 / 21.0, 0.28},  // lower better, 4.8 %
      {1.5, 2.0, 0.25, 0.83},          // lower better, 25 %
      {50.0, 100.0, 0.5, 0.97},        // lower better, 50 %
      {0.0, 100.0, 1.0, 1.0},          // lower better
      {7.0, 7.0, 0.0, 0.0},            // equal
  };
  for (const Vector& v : vectors) {
    EXPECT_DOUBLE_EQ(winningLead(v.winner, v.runner_up), v.lead) << v.winner << " " << v.runner_up;
    EXPECT_EQ(leadAlpha(winningLead(v.winner, v.runner_up)), v.alpha)
        << v.winner << " " << v.runner_up;
  }
}

/// The table of lead → alpha in docs/metrics-and-ranking.md#the-winners-grid, and the lead's
/// special cases.
TEST(WinnersLeadTest, AlphaTableAndSpecialCases) {
  EXPECT_EQ(leadAlpha(0.01), 0.07);
  EXPECT_EQ(leadAlpha(0.05), 0.30);
  EXPECT_EQ(leadAlpha(0.10), 0.50);
  EXPECT_EQ(leadAlpha(0.20), 0.75);
  EXPECT_EQ(leadAlpha(0.50), 0.97);
  EXPECT_EQ(leadAlpha(1.0), 1.0);
  EXPECT_EQ(leadAlpha(7.0), 1.0);
  EXPECT_EQ(leadAlpha(std::numeric_limits<double>::infinity()), 1.0);
  EXPECT_EQ(leadAlpha(0.0), 0.0);
  EXPECT_EQ(leadAlpha(-0.5), 0.0);  // a negative runner-up; clamped
  EXPECT_EQ(leadAlpha(std::numeric_limits<double>::quiet_NaN()), 0.0);
  EXPECT_EQ(winningLead(0.0, 0.0), 0.0);
  EXPECT_EQ(winningLead(5.0, 0.0), std::numeric_limits<double>::infinity());
}

TEST(WinnersPercentTest, RoundsHalfToEvenLikePython) {
  EXPECT_EQ(roundedPercent(109, 286), 38);
  EXPECT_EQ(roundedPercent(142, 286), 50);  // 49.65
  EXPECT_EQ(roundedPercent(73, 286), 26);   // 25.52
  EXPECT_EQ(roundedPercent(1, 8), 12);      // 12.5 → 12 (half-up would say 13)
  EXPECT_EQ(roundedPercent(3, 8), 38);      // 37.5 → 38
  EXPECT_EQ(roundedPercent(5, 8), 62);      // 62.5 → 62
  EXPECT_EQ(roundedPercent(1, 3), 33);
  EXPECT_EQ(roundedPercent(3, 3), 100);
  EXPECT_EQ(roundedPercent(0, 0), 0);
}

TEST(WinnersColourTest, FixedPairThenPaletteInListOrder) {
  EXPECT_EQ(approachColours({"loom-netty", "loom-tomcat", "platform-tomcat", "webflux-netty"}),
            (std::vector<std::string>{"forestgreen", "goldenrod", "maroon", "royalblue"}));
  EXPECT_EQ(approachColours({"callbacks-asio", "coroutines-asio", "fibers-asio", "threads-asio",
                             "threads-poco"}),
            (std::vector<std::string>{"goldenrod", "maroon", "black", "darkorchid", "darkcyan"}));
  EXPECT_EQ(approachColours({"a", "b", "loom-netty", "c", "d", "e", "f", "g", "h"}),
            (std::vector<std::string>{"goldenrod", "maroon", "forestgreen", "black", "darkorchid",
                                      "darkcyan", "chocolate", "slategray", "goldenrod"}));
  EXPECT_EQ(colourHex("forestgreen"), "#228b22");
  EXPECT_EQ(colourHex("white"), "#ffffff");
  for (const std::string_view colour : kApproachPalette) {
    EXPECT_EQ(colourHex(colour).size(), 7U) << colour;
  }
  EXPECT_EQ(colourHex("puce"), "");
}

/// The oracle vectors again, through the grid: direction, winner, colour and alpha per cell.
TEST(WinnersGridTest, CellsRankByDirection) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,requests_ok,requests_per_second_p50,latency_millis_p50,cpu_use_percent_"
      "avg,sockets_max\n"
      "s,loom-netty,10,0.50,20,1.50,100\n"
      "s,webflux-netty,11,1,21,2,50\n");
  const WinnersCell& ok = cellOf(grid, "requests_ok", "s");
  EXPECT_EQ(ok.outcome, CellOutcome::kWin);
  EXPECT_EQ(ok.winner, "webflux-netty");
  EXPECT_EQ(ok.alpha, 0.5);
  EXPECT_EQ(ok.colour, "royalblue");
  EXPECT_EQ(rankedApproaches(ok), (std::vector<std::string>{"webflux-netty", "loom-netty"}));
  EXPECT_EQ(ok.top()->text, "11");
  EXPECT_EQ(ok.runnerUp()->value, 10.0);

  EXPECT_EQ(cellOf(grid, "requests_per_second_p50", "s").winner, "webflux-netty");
  EXPECT_EQ(cellOf(grid, "requests_per_second_p50", "s").alpha, 1.0);
  EXPECT_EQ(cellOf(grid, "latency_millis_p50", "s").winner, "loom-netty");
  EXPECT_EQ(cellOf(grid, "latency_millis_p50", "s").alpha, 0.28);
  EXPECT_EQ(cellOf(grid, "latency_millis_p50", "s").colour, "forestgreen");
  EXPECT_EQ(cellOf(grid, "cpu_use_percent_avg", "s").winner, "loom-netty");
  EXPECT_EQ(cellOf(grid, "cpu_use_percent_avg", "s").alpha, 0.83);
  // The original's quirk: more sockets is better.
  EXPECT_EQ(cellOf(grid, "sockets_max", "s").winner, "loom-netty");
  EXPECT_EQ(cellOf(grid, "sockets_max", "s").lead, 1.0);

  EXPECT_EQ(grid.contests, 5U);
  EXPECT_EQ(grid.draws, 0U);
  EXPECT_EQ(grid.standings[0].approach, "loom-netty");
  EXPECT_EQ(grid.standings[0].wins, 3U);
  EXPECT_EQ(grid.standings[0].percent, 60);
  EXPECT_EQ(grid.standings[1].approach, "webflux-netty");
  EXPECT_EQ(grid.standings[1].rank, 2U);
  EXPECT_EQ(grid.standings[1].percent, 40);
}

TEST(WinnersGridTest, ErrorsDeRankAnApproachInEveryMetricOfThatScenario) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,requests_ok,requests_error,latency_millis_p50\n"
      "s1,fast,900,3,1\n"
      "s1,slow,100,0,50\n"
      "s1,slower,90,0,60\n"
      "s2,fast,900,0,1\n"
      "s2,slow,100,0,50\n");
  for (const char* metric : {"requests_ok", "latency_millis_p50"}) {
    const WinnersCell& cell = cellOf(grid, metric, "s1");
    EXPECT_EQ(cell.winner, "slow") << metric;
    EXPECT_EQ(rankedApproaches(cell), (std::vector<std::string>{"slow", "slower", "fast"}));
    EXPECT_TRUE(cell.ranked.back().has_errors);
    EXPECT_FALSE(cell.both_top_errors);
    EXPECT_EQ(cellOf(grid, metric, "s2").winner, "fast") << metric;
  }
  // requests_error itself: lower is better; fast has 3 errors, the others tie at 0.
  EXPECT_EQ(cellOf(grid, "requests_error", "s1").outcome, CellOutcome::kDraw);
  EXPECT_EQ(cellOf(grid, "requests_error", "s2").outcome, CellOutcome::kDraw);
}

TEST(WinnersGridTest, ExactlyEqualTopValuesAreADraw) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,latency_millis_p50,latency_millis_p90\n"
      "s,a,100,101\n"
      "s,b,100,102\n"
      "s,c,99.0,103\n",
      {"a", "b"});
  const WinnersCell& p50 = cellOf(grid, "latency_millis_p50", "s");
  EXPECT_EQ(p50.outcome, CellOutcome::kDraw);
  EXPECT_EQ(p50.winner, "");
  EXPECT_EQ(p50.lead, 0.0);
  EXPECT_EQ(p50.alpha, 0.0);
  EXPECT_EQ(p50.colour, "goldenrod");  // the top's colour, invisible at alpha 0
  EXPECT_EQ(rankedApproaches(p50), (std::vector<std::string>{"a", "b"}));  // c is not in the set
  EXPECT_EQ(cellOf(grid, "latency_millis_p90", "s").winner, "a");
  EXPECT_EQ(grid.contests, 2U);
  EXPECT_EQ(grid.draws, 1U);
  EXPECT_EQ(grid.draw_percent, 50);
  EXPECT_EQ(grid.standing("a")->wins, 1U);
  EXPECT_EQ(grid.standing("b")->wins, 0U);
  EXPECT_EQ(grid.standing("c"), nullptr);
}

TEST(WinnersGridTest, ValuesAreComparedAsResultsCsvHoldsThem) {
  SummaryRow a;
  a.scenario = "s";
  a.approach = "a";
  a.setMetric("latency_millis_p50", 100.4);   // "100"
  a.setMetric("cpu_use_percent_avg", 5.404);  // "5.40"
  SummaryRow b = a;
  b.approach = "b";
  b.setMetric("latency_millis_p50", 100.2);   // "100": the rounding is the tolerance
  b.setMetric("cpu_use_percent_avg", 5.396);  // "5.40"
  const WinnersGrid grid = computeWinners(toResultsTable({a, b}));
  EXPECT_EQ(cellOf(grid, "latency_millis_p50", "s").outcome, CellOutcome::kDraw);
  EXPECT_EQ(cellOf(grid, "cpu_use_percent_avg", "s").outcome, CellOutcome::kDraw);
}

TEST(WinnersGridTest, BothTopTwoWithErrorsIsAWhiteDraw) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,requests_error,latency_millis_p50\n"
      "s,a,5,10\n"
      "s,b,7,20\n");
  const WinnersCell& cell = cellOf(grid, "latency_millis_p50", "s");
  EXPECT_EQ(cell.outcome, CellOutcome::kDraw);
  EXPECT_TRUE(cell.both_top_errors);
  EXPECT_EQ(cell.colour, "white");
  EXPECT_EQ(cell.top()->approach, "a");
  EXPECT_EQ(grid.draws, 2U);
  EXPECT_EQ(grid.standing("a")->wins, 0U);
}

TEST(WinnersGridTest, SingleApproachWinsUnlessItHadErrors) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,requests_error,latency_millis_p50\n"
      "ok,a,0,10\n"
      "failed,a,1,0\n");
  const WinnersCell& ok = cellOf(grid, "latency_millis_p50", "ok");
  EXPECT_EQ(ok.outcome, CellOutcome::kWin);
  EXPECT_EQ(ok.winner, "a");
  EXPECT_EQ(ok.alpha, 0.0);
  EXPECT_EQ(ok.lead, 0.0);
  EXPECT_EQ(ok.runnerUp(), ok.top());
  EXPECT_EQ(ok.colour, "goldenrod");
  const WinnersCell& failed = cellOf(grid, "latency_millis_p50", "failed");
  EXPECT_EQ(failed.outcome, CellOutcome::kDraw);
  EXPECT_TRUE(failed.both_top_errors);
  EXPECT_EQ(failed.colour, "white");
  EXPECT_EQ(failed.alpha, 0.0);
  EXPECT_EQ(grid.contests, 4U);
  EXPECT_EQ(grid.draws, 2U);
  EXPECT_EQ(grid.standings[0].wins, 2U);
}

TEST(WinnersGridTest, RankTiesKeepApproachListOrder) {
  const std::string csv =
      "scenario,approach,latency_millis_p50,latency_millis_p90\n"
      "s,a,1,2\n"
      "s,b,2,1\n"
      "s,c,3,3\n";
  const WinnersGrid sorted = winnersOf(csv);
  ASSERT_EQ(sorted.standings.size(), 3U);
  EXPECT_EQ(sorted.approaches, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(sorted.standings[0].approach, "a");
  EXPECT_EQ(sorted.standings[1].approach, "b");
  EXPECT_EQ(sorted.standings[2].approach, "c");
  EXPECT_EQ(sorted.standings[1].wins, 1U);
  EXPECT_EQ(sorted.standings[1].rank, 2U);  // no shared ranks

  const WinnersGrid listed = winnersOf(csv, {"c", "b", "a"});
  EXPECT_EQ(listed.standings[0].approach, "b");
  EXPECT_EQ(listed.standings[1].approach, "a");
  EXPECT_EQ(listed.standings[2].approach, "c");
  EXPECT_EQ(listed.standings[2].rank, 3U);
  EXPECT_EQ(listed.standing("c")->colour, "goldenrod");  // colours follow the list order too
}

TEST(WinnersGridTest, EqualValuesKeepFileOrderWithinACell) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,latency_millis_p50\n"
      "s,b,5\n"
      "s,c,1\n"
      "s,a,5\n");
  EXPECT_EQ(rankedApproaches(cellOf(grid, "latency_millis_p50", "s")),
            (std::vector<std::string>{"c", "b", "a"}));
}

TEST(WinnersGridTest, EmptyOrMissingRequestsErrorIsNoError) {
  const WinnersGrid empty_cell = winnersOf(
      "scenario,approach,requests_error,latency_millis_p50\n"
      "s,a,,1\n"
      "s,b,0,2\n");
  const WinnersCell& cell = cellOf(empty_cell, "latency_millis_p50", "s");
  EXPECT_EQ(cell.winner, "a");
  EXPECT_FALSE(cell.top()->has_errors);
  EXPECT_EQ(cellOf(empty_cell, "requests_error", "s").outcome, CellOutcome::kDraw);  // "" is 0

  const WinnersGrid no_column = winnersOf(
      "scenario,approach,latency_millis_p50\n"
      "s,a,1\n"
      "s,b,2\n");
  EXPECT_EQ(cellOf(no_column, "latency_millis_p50", "s").winner, "a");
  EXPECT_FALSE(cellOf(no_column, "latency_millis_p50", "s").both_top_errors);
}

TEST(WinnersGridTest, EmptyMetricCellCountsAsZero) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,latency_millis_p50\n"
      "s,a,3\n"
      "s,b,\n");
  const WinnersCell& cell = cellOf(grid, "latency_millis_p50", "s");
  EXPECT_EQ(cell.winner, "b");
  EXPECT_EQ(cell.top()->value, 0.0);
  EXPECT_EQ(cell.lead, 1.0);
}

TEST(WinnersGridTest, ApproachSetScenariosAndMetricsFollowTheTable) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,m2,m1\n"
      "late,x,1,1\n"
      "early,a,1,2\n"
      "early,b,2,1\n"
      "late,a,5,5\n",
      {"b", "a", "ghost"});
  EXPECT_EQ(grid.scenarios, (std::vector<std::string>{"late", "early"}));
  EXPECT_EQ(grid.metrics, (std::vector<std::string>{"m2", "m1"}));
  EXPECT_EQ(grid.approaches, (std::vector<std::string>{"b", "a", "ghost"}));
  EXPECT_EQ(rankedApproaches(cellOf(grid, "m2", "late")), (std::vector<std::string>{"a"}));
  EXPECT_EQ(grid.contests, 4U);
  ASSERT_NE(grid.standing("ghost"), nullptr);
  EXPECT_EQ(grid.standing("ghost")->wins, 0U);
  EXPECT_EQ(grid.standing("x"), nullptr);
  EXPECT_THROW(winnersOf("scenario,approach,m\ns,a,1\n", {"a", "a"}), std::invalid_argument);
}

TEST(WinnersGridTest, ScenarioWithoutAnApproachOfTheSetIsEmptyNotAContest) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,m\n"
      "only-x,x,1\n"
      "both,a,1\n",
      {"a"});
  const WinnersCell& cell = cellOf(grid, "m", "only-x");
  EXPECT_EQ(cell.outcome, CellOutcome::kEmpty);
  EXPECT_EQ(cell.top(), nullptr);
  EXPECT_EQ(cell.runnerUp(), nullptr);
  EXPECT_EQ(cell.colour, "");
  EXPECT_EQ(grid.contests, 1U);
  EXPECT_EQ(grid.standings[0].percent, 100);
}

TEST(WinnersGridTest, DuplicateRowsLastOneCounts) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,m\n"
      "s,a,1\n"
      "s,b,2\n"
      "s,a,3\n");
  const WinnersCell& cell = cellOf(grid, "m", "s");
  EXPECT_EQ(cell.winner, "b");
  EXPECT_EQ(cell.ranked.size(), 2U);
  EXPECT_EQ(cell.ranked[1].value, 3.0);
}

TEST(WinnersGridTest, NanRanksLastAndTwoNansDraw) {
  const WinnersGrid grid = winnersOf(
      "scenario,approach,requests_ok,m\n"
      "s,a,nan,nan\n"
      "s,b,1,nan\n");
  const WinnersCell& higher = cellOf(grid, "requests_ok", "s");
  EXPECT_EQ(higher.winner, "b");
  EXPECT_EQ(higher.alpha, 0.0);
  EXPECT_EQ(cellOf(grid, "m", "s").outcome, CellOutcome::kDraw);
}

TEST(WinnersGridTest, EmptyTableGivesAnEmptyGrid) {
  const WinnersGrid grid = winnersOf("scenario,approach,m\n");
  EXPECT_TRUE(grid.scenarios.empty());
  EXPECT_TRUE(grid.standings.empty());
  EXPECT_EQ(grid.contests, 0U);
  EXPECT_EQ(grid.draw_percent, 0);
}

}  // namespace
}  // namespace benchd::results
