// results.md as the original lays it out (docs/run.md#resultsmd), rendered from a hand-made
// document.
#include <benchd/results/results_markdown.hpp>
#include <benchd/results/results_table.hpp>

#include <gtest/gtest.h>

#include <sstream>

namespace benchd::results {
namespace {

std::size_t positionOf(const std::string& text, const std::string& part) {
  const std::size_t at = text.find(part);
  EXPECT_NE(at, std::string::npos) << "missing: " << part << "\n" << text;
  return at;
}

ResultsDocument sampleDocument() {
  ResultsDocument document;
  document.title = "scenarios-ci";
  document.started_epoch_millis = 1'764'450'000'000;  // 2025-11-29 21:00:00 UTC
  document.finished_epoch_millis = 1'764'450'000'000 + 3'725'000;
  document.specs = {{"OS", "Debian GNU/Linux 12"}, {"odd|label", "a|b"}};
  document.scenario_file = "scenarios/scenarios-ci.csv";
  document.settings_note = "Server CPUs: all.";
  scenario::ScenarioRow row;
  row.name = "ci-get-movies";
  row.workload = "get-movies";
  row.server_profiles = {"no-cache", "read-write"};
  row.connections = 100;
  row.requests_per_second = 200;
  row.test_seconds = 5;
  document.rows = {row};
  SummaryRow good;
  good.scenario = "ci-get-movies";
  good.approach = "callbacks-asio";
  good.setMetric("requests_ok", 1000);
  good.setMetric("latency_millis_p50", 100.4);
  good.diagnostics.generator_saturated = true;
  good.diagnostics.saturation_reason = "10 of 10 seconds at 99 % CPU";
  document.results = {good, failedRow("ci-get-movies", "threads-poco", "the worker died")};
  document.winners = computeWinners(toResultsTable(document.results));
  document.images = {"ci-get-movies/callbacks-asio.png"};
  return document;
}

TEST(ResultsMarkdown, HasTheOriginalsSectionsInOrder) {
  std::ostringstream out;
  writeResultsMarkdown(out, sampleDocument());
  const std::string text = out.str();
  const std::size_t title = positionOf(text, "# scenarios-ci\n");
  const std::size_t time = positionOf(text, "## Test Time");
  const std::size_t specs = positionOf(text, "## System Specs");
  const std::size_t scenarios = positionOf(text, "## Scenarios");
  const std::size_t overview = positionOf(text, "## Result Overview");
  const std::size_t details = positionOf(text, "## Result Details");
  EXPECT_LT(title, time);
  EXPECT_LT(time, specs);
  EXPECT_LT(specs, scenarios);
  EXPECT_LT(scenarios, overview);
  EXPECT_LT(overview, details);
  positionOf(text, "| Start (UTC) | 2025-11-29 21:00:00 |");
  positionOf(text, "| Duration | 01:02:05 |");
  positionOf(text, "| odd\\|label | a\\|b |");
  positionOf(text,
             "| [ci-get-movies](#ci-get-movies) | get-movies | no-cache\\|read-write | 0 | 0 "
             "| 100 | 200 | 0 | 5 |");
  positionOf(text, "Server CPUs: all.");
}

TEST(ResultsMarkdown, EmbedsChartsThatExistAndSaysWhichDoNot) {
  std::ostringstream out;
  writeResultsMarkdown(out, sampleDocument());
  const std::string text = out.str();
  positionOf(text, "#### callbacks-asio\n\n![callbacks-asio](./ci-get-movies/callbacks-asio.png)");
  positionOf(text, "#### threads-poco (No image available)");
  EXPECT_EQ(text.find("results.png"), std::string::npos) << "not rendered, not embedded";
}

TEST(ResultsMarkdown, FlagsFailedAndSaturatedResults) {
  std::ostringstream out;
  writeResultsMarkdown(out, sampleDocument());
  const std::string text = out.str();
  const std::size_t caveats = positionOf(text, "### Caveats");
  EXPECT_LT(caveats, positionOf(text, "## Result Details"));
  positionOf(text, "- ci-get-movies × callbacks-asio: **load generator saturated**");
  positionOf(text, "10 of 10 seconds at 99 % CPU");
  positionOf(
      text,
      "- ci-get-movies × threads-poco: **failed** (its metrics missing but the request counts; "
      "ranked last): "
      "the worker died");
  positionOf(text, "**Failed**: the worker died");
}

TEST(ResultsMarkdown, NamesAResultMeasuredOnABusyHost) {
  ResultsDocument document = sampleDocument();
  document.results[0].diagnostics.generator_saturated = false;
  document.results[0].diagnostics.other_cpu_percent_avg = 25.0;
  document.results[0].diagnostics.other_cpu_percent_max = 61.5;
  document.results[0].diagnostics.other_ram_percent_avg = 30.0;
  std::ostringstream out;
  writeResultsMarkdown(out, document);
  positionOf(out.str(),
             "- ci-get-movies × callbacks-asio: **measured on a busy host**: other processes used "
             "25 % of its CPUs on average (61.5 % at most) and 30 % of its RAM, so the "
             "scenario's host-wide cells (host CPU and RAM, sockets, network) are not ranked\n");

  // Memory held by other processes alone is no busy host.
  document.results[0].diagnostics.other_cpu_percent_avg = 5.0;
  std::ostringstream quiet;
  writeResultsMarkdown(quiet, document);
  EXPECT_EQ(quiet.str().find("busy host"), std::string::npos) << quiet.str();
}

TEST(ResultsMarkdown, ShowsTheMedianItsIntervalAndTheSpreadOfRepeatedRuns) {
  ResultsDocument document = sampleDocument();
  SummaryRow run = document.results[0];
  run.diagnostics.generator_saturated = false;
  document.results.clear();
  for (const auto& [repeat, latency] : {std::pair{1U, 10.0}, {2U, 12.0}, {3U, 11.0}}) {
    run.round = repeat;
    run.setMetric("latency_millis_p50", latency);
    document.results.push_back(run);
  }
  SummaryRow failed = failedRow("ci-get-movies", "callbacks-asio", "it died");
  failed.round = 4;
  document.results.push_back(failed);
  std::ostringstream out;
  writeResultsMarkdown(out, document);
  const std::string text = out.str();
  // The failed run is listed but not summarised; 3 runs give [min, max] at 75 % coverage.
  positionOf(text, "Over 3 finished runs: the median");
  positionOf(text, "| latency_millis_p50 | 11 | 10 – 12 | 10 – 12 | 18.2 % |\n");
  positionOf(text,
             "The interval covers the median with probability 75 % (fewer than 6 runs "
             "cannot reach 95 %).");
  positionOf(text, "Run 4 of 4");

  // One run has no spread to show.
  document.results.resize(1);
  std::ostringstream single;
  writeResultsMarkdown(single, document);
  EXPECT_EQ(single.str().find("finished runs"), std::string::npos);
}

TEST(ResultsMarkdown, NamesTheApproachesAScenarioDidNotRunAndWhy) {
  ResultsDocument document = sampleDocument();
  const std::string scenario = document.rows.front().name;
  document.not_run.push_back({scenario, "threads-poco",
                              "threads-poco does not implement "
                              "client-beast (its clients: client-poco)"});
  std::ostringstream out;
  writeResultsMarkdown(out, document);
  const std::string text = out.str();
  const std::size_t heading = text.find(
      "#### threads-poco (not run)\n\nthreads-poco does not "
      "implement client-beast (its clients: client-poco).");
  ASSERT_NE(heading, std::string::npos) << text;
  EXPECT_GT(heading, text.find("### " + scenario)) << "under its scenario";
}

TEST(ResultsMarkdown, SaysWhenARunWasStopped) {
  ResultsDocument document = sampleDocument();
  document.stopped = true;
  document.results.clear();
  std::ostringstream out;
  writeResultsMarkdown(out, document);
  positionOf(out.str(), "This run was stopped before it finished");
  positionOf(out.str(), "No results.");
}

}  // namespace
}  // namespace benchd::results
