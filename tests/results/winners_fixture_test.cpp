// The original's published default results ranked again: the win counts, shares and per-cell
// winners must be those the original published (its README;
// docs/metrics-and-ranking.md#checks-against-the-original).
#include "build_paths.hpp"

#include <benchd/results/metric_format.hpp>
#include <benchd/results/winners.hpp>
#include <benchd/results/winners_markdown.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

namespace benchd::results {
namespace {

const std::string kFixture =
    benchd::testing::sourceDir() + "/tests/results/fixtures/loom-default-results.csv";

ResultsTable loomDefaultResults() {
  return readResultsCsvFile(kFixture);
}

std::size_t indexOf(const std::vector<std::string>& names, std::string_view name) {
  const auto found = std::find(names.begin(), names.end(), name);
  EXPECT_NE(found, names.end()) << name;
  return static_cast<std::size_t>(found - names.begin());
}

const WinnersCell& cellOf(const WinnersGrid& grid, std::string_view metric,
                          std::string_view scenario) {
  return grid.cell(indexOf(grid.metrics, metric), indexOf(grid.scenarios, scenario));
}

/// A cell as winner(alpha) with the approach's initials: "WN(.61)", "LT(1.0)", "draw".
std::string shortCell(const WinnersCell& cell) {
  if (cell.outcome != CellOutcome::kWin) {
    return "draw";
  }
  const std::string initials = cell.winner == "loom-netty"      ? "LN"
                               : cell.winner == "loom-tomcat"   ? "LT"
                               : cell.winner == "webflux-netty" ? "WN"
                                                                : cell.winner;
  return initials + "(" + formatAlpha(cell.alpha) + ")";
}

std::size_t countInRow(const WinnersGrid& grid, std::string_view metric, CellOutcome outcome,
                       std::string_view winner = "") {
  std::size_t count = 0;
  for (const WinnersCell& cell : grid.cells[indexOf(grid.metrics, metric)]) {
    if (cell.outcome == outcome && cell.winner == winner) {
      ++count;
    }
  }
  return count;
}

/// Whether `cell` is what formatMetricValue writes for some value. A value just below an integer
/// that rounds up to it ("66.0" from 65.96) keeps its decimals, so reading and writing again
/// gives "66"; the decimals then still match the magnitude rule of
/// docs/metrics-and-ranking.md#number-format.
bool isMetricFormatted(std::string_view cell, double value) {
  if (formatMetricValue(value) == cell) {
    return true;
  }
  const auto point = cell.find('.');
  const std::size_t decimals = point == std::string_view::npos ? 0 : cell.size() - point - 1;
  const bool integral = std::trunc(value) == value;
  return integral &&
         ((decimals == 1 && value >= 10.0 && value <= 100.0) || (decimals == 2 && value <= 10.0));
}

TEST(WinnersFixtureTest, LoadsTheOriginals26ColumnFileAndEveryCellIsInItsOwnFormat) {
  const ResultsTable table = loomDefaultResults();
  EXPECT_EQ(table.metricNames().size(), 26U);
  EXPECT_EQ(table.rows().size(), 33U);
  std::size_t rounded_up = 0;
  for (const ResultsRow& row : table.rows()) {
    for (std::size_t metric = 0; metric < row.cells.size(); ++metric) {
      const double value = table.number(row, metric);
      EXPECT_TRUE(isMetricFormatted(row.cells[metric], value))
          << row.scenario << " " << row.approach << " " << table.metricNames()[metric] << " '"
          << row.cells[metric] << "'";
      if (formatMetricValue(value) != row.cells[metric]) {
        ++rounded_up;
      }
    }
  }
  EXPECT_GT(rounded_up, 0U);  // the file has such cells ("66.0"), so the rule is exercised
}

TEST(WinnersFixtureTest, WritesTheFileBackByteForByte) {
  std::ifstream in(kFixture, std::ios::binary);
  std::ostringstream original;
  original << in.rdbuf();
  std::ostringstream written;
  writeResultsCsv(written, loomDefaultResults());
  EXPECT_EQ(written.str(), original.str());
}

TEST(WinnersFixtureTest, AllThreeApproaches) {
  const WinnersGrid grid = computeWinners(loomDefaultResults());
  EXPECT_EQ(grid.approaches,
            (std::vector<std::string>{"loom-netty", "loom-tomcat", "webflux-netty"}));
  EXPECT_EQ(grid.scenarios.size(), 11U);
  EXPECT_EQ(grid.scenarios.front(), "smoketest");
  EXPECT_EQ(grid.contests, 286U);
  ASSERT_EQ(grid.standings.size(), 3U);
  const struct {
    const char* approach;
    std::size_t wins;
    int percent;
    const char* colour;
  } expected[] = {{"loom-netty", 109, 38, "forestgreen"},
                  {"loom-tomcat", 64, 22, "goldenrod"},
                  {"webflux-netty", 49, 17, "royalblue"}};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(grid.standings[i].approach, expected[i].approach);
    EXPECT_EQ(grid.standings[i].rank, i + 1);
    EXPECT_EQ(grid.standings[i].wins, expected[i].wins) << expected[i].approach;
    EXPECT_EQ(grid.standings[i].percent, expected[i].percent) << expected[i].approach;
    EXPECT_EQ(grid.standings[i].colour, expected[i].colour);
  }
  EXPECT_EQ(grid.draws, 64U);
  EXPECT_EQ(grid.draw_percent, 22);
}

TEST(WinnersFixtureTest, NettyOnly) {
  const WinnersGrid grid = computeWinners(loomDefaultResults(), {"loom-netty", "webflux-netty"});
  EXPECT_EQ(grid.contests, 286U);
  ASSERT_EQ(grid.standings.size(), 2U);
  EXPECT_EQ(grid.standings[0].approach, "loom-netty");
  EXPECT_EQ(grid.standings[0].wins, 142U);
  EXPECT_EQ(grid.standings[0].percent, 50);
  EXPECT_EQ(grid.standings[1].approach, "webflux-netty");
  EXPECT_EQ(grid.standings[1].wins, 73U);
  EXPECT_EQ(grid.standings[1].percent, 26);
  EXPECT_EQ(grid.draws, 71U);
  EXPECT_EQ(grid.draw_percent, 25);
  EXPECT_EQ(grid.standing("loom-tomcat"), nullptr);
}

/// The original's per-scenario winners of six key metrics, every cell.
TEST(WinnersFixtureTest, PerScenarioCellsOfKeyMetrics) {
  const std::array<std::string_view, 6> metrics = {
      "latency_millis_p50",  "latency_millis_p90",   "latency_millis_p99",
      "cpu_use_percent_avg", "heap_use_percent_avg", "garbage_collection_time_millis"};
  const struct {
    std::string_view scenario;
    std::array<std::string_view, 6> cells;
  } expected[] = {
      {"smoketest", {"WN(.11)", "WN(.11)", "LN(.16)", "WN(.61)", "LN(.21)", "draw"}},
      {"1k-vus-and-rps-get-time-no-delay",
       {"LT(.95)", "LT(.71)", "LT(.66)", "WN(.11)", "LN(.16)", "LT(.96)"}},
      {"5k-vus-and-rps-get-time", {"draw", "LT(.07)", "draw", "WN(.46)", "LN(.14)", "LT(1.0)"}},
      {"5k-vus-and-rps-get-movies", {"draw", "draw", "draw", "LN(.33)", "LN(.17)", "LT(.99)"}},
      {"10k-vus-and-rps-get-movies", {"draw", "draw", "draw", "WN(.27)", "WN(.15)", "WN(.71)"}},
      {"10k-vus-and-rps-get-movies-call-depth-1",
       {"draw", "LN(.07)", "LN(.06)", "WN(.76)", "WN(.65)", "WN(.31)"}},
      {"20k-vus-stepped-spike-get-movies",
       {"LT(.07)", "draw", "LT(.40)", "LN(.49)", "LT(.47)", "LT(.99)"}},
      {"20k-vus-smooth-spike-get-movies",
       {"LT(.07)", "draw", "LT(.39)", "LN(.48)", "LT(.13)", "LT(.99)"}},
      {"20k-vus-smooth-spike-get-post-movies",
       {"draw", "draw", "LT(.46)", "LN(.64)", "LT(.14)", "LT(.99)"}},
      {"20k-vus-smooth-spike-get-post-movies-call-depth-1",
       {"draw", "LN(.07)", "LT(.34)", "WN(.04)", "LN(.35)", "LT(.96)"}},
      {"20k-vus-smooth-spike-get-post-movies-call-depth-2",
       {"LN(.07)", "LN(.07)", "LT(.06)", "WN(.34)", "LN(.22)", "LT(.68)"}},
  };
  const WinnersGrid grid = computeWinners(loomDefaultResults());
  for (const auto& row : expected) {
    for (std::size_t i = 0; i < metrics.size(); ++i) {
      EXPECT_EQ(shortCell(cellOf(grid, metrics[i], row.scenario)), row.cells[i])
          << row.scenario << " " << metrics[i];
    }
  }
}

TEST(WinnersFixtureTest, TomcatsErrorsDeRankItInItsFailedScenario) {
  const WinnersGrid grid = computeWinners(loomDefaultResults());
  const std::string_view failed = "10k-vus-and-rps-get-movies-call-depth-1";
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    const WinnersCell& cell = grid.cell(metric, indexOf(grid.scenarios, failed));
    EXPECT_EQ(cell.ranked.back().approach, "loom-tomcat") << grid.metrics[metric];
    EXPECT_TRUE(cell.ranked.back().has_errors);
    EXPECT_NE(cell.winner, "loom-tomcat");
  }
  // Its 10.1 ms minimum latency would win otherwise; the Netty pair tie at 100.
  EXPECT_EQ(cellOf(grid, "latency_millis_min", failed).outcome, CellOutcome::kDraw);
}

TEST(WinnersFixtureTest, PerMetricTendencies) {
  const WinnersGrid grid = computeWinners(loomDefaultResults());
  EXPECT_EQ(countInRow(grid, "requests_error", CellOutcome::kDraw), 11U);
  EXPECT_EQ(countInRow(grid, "latency_millis_min", CellOutcome::kDraw), 10U);
  EXPECT_EQ(countInRow(grid, "sockets_max", CellOutcome::kDraw), 10U);
  for (const char* metric : {"platform_threads_avg", "platform_threads_max"}) {
    EXPECT_EQ(countInRow(grid, metric, CellOutcome::kWin, "loom-netty"), 10U) << metric;
    EXPECT_EQ(countInRow(grid, metric, CellOutcome::kDraw), 1U) << metric;
  }
  EXPECT_EQ(countInRow(grid, "network_kib_per_req_avg", CellOutcome::kWin, "loom-netty"), 10U);
  EXPECT_EQ(countInRow(grid, "network_packets_per_req_avg", CellOutcome::kWin, "loom-netty"), 9U);
  EXPECT_EQ(countInRow(grid, "garbage_collection_count", CellOutcome::kWin, "loom-tomcat"), 8U);
  EXPECT_EQ(countInRow(grid, "garbage_collection_time_millis", CellOutcome::kWin, "loom-tomcat"),
            8U);
  EXPECT_EQ(countInRow(grid, "cpu_use_percent_avg", CellOutcome::kWin, "webflux-netty"), 7U);
}

TEST(WinnersFixtureTest, MarkdownShowsStandingsAndCells) {
  const std::string markdown = winnersMarkdown(computeWinners(loomDefaultResults()));
  EXPECT_NE(markdown.find("| 1 | loom-netty | 109 | 38 % |\n"
                          "| 2 | loom-tomcat | 64 | 22 % |\n"
                          "| 3 | webflux-netty | 49 | 17 % |\n"
                          "| | no winner (draws) | 64 | 22 % |\n"
                          "\n"
                          "286 contests: 26 metrics × 11 scenarios.\n"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| cpu_use_percent_avg ↓ | webflux-netty 2.62 (.61) |"),
            std::string::npos);
  EXPECT_NE(markdown.find("| requests_error ↓ | draw 0 |"), std::string::npos);
  EXPECT_NE(markdown.find("| sockets_max ↑ |"), std::string::npos);
}

}  // namespace
}  // namespace benchd::results
