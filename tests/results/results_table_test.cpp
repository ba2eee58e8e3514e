#include <benchd/results/results_table.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>

namespace benchd::results {
namespace {

std::string written(const ResultsTable& table) {
  std::ostringstream out;
  writeResultsCsv(out, table);
  return out.str();
}

/// The ResultsFileError that reading `text` as "x.csv" throws; fails the test if none.
ResultsFileError readError(const std::string& text) {
  try {
    (void)readResultsCsv(text, "x.csv");
  } catch (const ResultsFileError& error) {
    return error;
  }
  ADD_FAILURE() << "no ResultsFileError for:\n" << text;
  return {"", 0, 0, "", ""};
}

TEST(ResultsTableTest, ReadsArbitraryMetricColumnsKeepingCellText) {
  const ResultsTable table = readResultsCsv(
      "scenario,approach,requests_ok,my_metric\n"
      "s1,a,30,5.40\n"
      "s1,b,31,\n",
      "x.csv");
  ASSERT_EQ(table.metricNames(), (std::vector<std::string>{"requests_ok", "my_metric"}));
  ASSERT_EQ(table.rows().size(), 2U);
  const ResultsRow& first = table.rows()[0];
  EXPECT_EQ(first.scenario, "s1");
  EXPECT_EQ(first.approach, "a");
  EXPECT_EQ(first.cells, (std::vector<std::string>{"30", "5.40"}));
  EXPECT_EQ(first.source_line, 2U);
  EXPECT_EQ(table.number(first, 1), 5.4);
  EXPECT_EQ(table.number(first, "requests_ok"), 30.0);
  EXPECT_EQ(table.number(first, "unknown"), std::nullopt);
  EXPECT_EQ(table.metricIndex("my_metric"), 1U);
  EXPECT_EQ(table.metricIndex("scenario"), std::nullopt);
  // An empty cell is 0.0, as the original reads it, but keeps its (empty) text.
  EXPECT_EQ(table.rows()[1].cells[1], "");
  EXPECT_EQ(table.number(table.rows()[1], 1), 0.0);
}

TEST(ResultsTableTest, RoundTripsCanonicalText) {
  const std::string text =
      "scenario,approach,requests_ok,requests_error,latency_millis_p50\n"
      "smoketest,loom-tomcat,30,0,5.80\n"
      "smoketest,loom-netty,30,,0.03\n"
      "\"odd,name\",\"say \"\"hi\"\"\",1,2,3\n";
  const ResultsTable table = readResultsCsv(text, "x.csv");
  EXPECT_EQ(table.rows()[2].scenario, "odd,name");
  EXPECT_EQ(table.rows()[2].approach, "say \"hi\"");
  EXPECT_EQ(written(table), text);
}

TEST(ResultsTableTest, ToleratesBomCrLfBlankLinesAndBlanksAroundFields) {
  const ResultsTable table = readResultsCsv(
      "\xEF\xBB\xBF"
      "\r\n"
      "scenario , approach,m\r\n"
      "\r\n"
      " s ,\ta , 1.5 \r\n"
      "\n",
      "x.csv");
  ASSERT_EQ(table.rows().size(), 1U);
  EXPECT_EQ(table.metricNames()[0], "m");
  EXPECT_EQ(table.rows()[0].scenario, "s");
  EXPECT_EQ(table.rows()[0].approach, "a");
  EXPECT_EQ(table.rows()[0].cells[0], "1.5");
  EXPECT_EQ(table.rows()[0].source_line, 4U);
  EXPECT_EQ(written(table), "scenario,approach,m\ns,a,1.5\n");
}

TEST(ResultsTableTest, HeaderWithoutRowsIsAnEmptyTable) {
  const ResultsTable table = readResultsCsv("scenario,approach,m\n", "x.csv");
  EXPECT_EQ(table.metricNames().size(), 1U);
  EXPECT_TRUE(table.rows().empty());
}

TEST(ResultsTableTest, ParseCellNumberAcceptsWhatPythonsFloatDoesForMetrics) {
  EXPECT_EQ(parseCellNumber(""), 0.0);
  EXPECT_EQ(parseCellNumber("  "), 0.0);
  EXPECT_EQ(parseCellNumber("5"), 5.0);
  EXPECT_EQ(parseCellNumber(" 5.25 "), 5.25);
  EXPECT_EQ(parseCellNumber("+5"), 5.0);
  EXPECT_EQ(parseCellNumber("-0.5"), -0.5);
  EXPECT_EQ(parseCellNumber("1e3"), 1000.0);
  EXPECT_EQ(parseCellNumber(".5"), 0.5);
  EXPECT_TRUE(std::isnan(parseCellNumber("nan").value()));
  EXPECT_TRUE(std::isinf(parseCellNumber("inf").value()));
  for (const char* bad :
       {"abc", "5x", "1,5", "+-1", "++1", "+", "-", "1e", "0x10", "1 2", "1e999"}) {
    EXPECT_EQ(parseCellNumber(bad), std::nullopt) << bad;
  }
}

TEST(ResultsTableTest, EmptyFileIsAnError) {
  for (const std::string text : {"", "\n\n", "\xEF\xBB\xBF", "  \r\n"}) {
    const ResultsFileError error = readError(text);
    EXPECT_EQ(error.line(), 0U);
    EXPECT_EQ(std::string(error.what()),
              "x.csv: empty file, expected a header 'scenario,approach,<metric>,...'");
  }
}

TEST(ResultsTableTest, HeaderErrorsNameTheColumn) {
  EXPECT_STREQ(readError("Scenario,approach,m\n").what(),
               "x.csv:1: column 1: expected a header 'scenario,approach,<metric>,...', got "
               "'Scenario'");
  EXPECT_STREQ(readError("scenario\n").what(),
               "x.csv:1: column 2: expected a header 'scenario,approach,<metric>,...', got "
               "nothing");
  EXPECT_STREQ(readError("scenario,approach\n").what(),
               "x.csv:1: expected at least one metric column after 'approach'");
  EXPECT_STREQ(readError("scenario,approach,a,,b\n").what(),
               "x.csv:1: column 4: expected a column name, got nothing");
}

TEST(ResultsTableTest, DuplicateHeaderNamesAreErrors) {
  const ResultsFileError error = readError("scenario,approach,a,b,a\ns,x,1,2,3\n");
  EXPECT_STREQ(error.what(), "x.csv:1: column 5 (a): duplicate column name, also column 3");
  EXPECT_EQ(error.line(), 1U);
  EXPECT_EQ(error.column(), 5U);
  EXPECT_EQ(error.columnName(), "a");
  EXPECT_EQ(error.reason(), "duplicate column name, also column 3");
  EXPECT_STREQ(readError("scenario,approach,m,approach\n").what(),
               "x.csv:1: column 4 (approach): duplicate column name, also column 2");
}

TEST(ResultsTableTest, WrongColumnCountNamesTheLine) {
  const std::string header = "scenario,approach,a,b\n";
  EXPECT_STREQ(readError(header + "s,x,1,2\ns,y,1\n").what(),
               "x.csv:3: expected 4 comma-separated columns (as the header), got 3");
  EXPECT_STREQ(readError(header + "s,x,1,2,3\n").what(),
               "x.csv:2: expected 4 comma-separated columns (as the header), got 5");
}

TEST(ResultsTableTest, BadNumbersNameLineColumnAndText) {
  const ResultsFileError error =
      readError("scenario,approach,requests_ok,cpu_use_percent_max\n\ns,x,1,abc\n");
  EXPECT_STREQ(error.what(),
               "x.csv:3: column 4 (cpu_use_percent_max): expected a number or nothing, got "
               "'abc'");
  EXPECT_EQ(error.line(), 3U);
  EXPECT_EQ(error.column(), 4U);
  EXPECT_EQ(error.columnName(), "cpu_use_percent_max");
  EXPECT_STREQ(readError("scenario,approach,m\ns,x,1.2.3\n").what(),
               "x.csv:2: column 3 (m): expected a number or nothing, got '1.2.3'");
}

TEST(ResultsTableTest, EmptyScenarioOrApproachIsAnError) {
  EXPECT_STREQ(readError("scenario,approach,m\n,x,1\n").what(),
               "x.csv:2: column 1 (scenario): expected a scenario name, got nothing");
  EXPECT_STREQ(readError("scenario,approach,m\ns, ,1\n").what(),
               "x.csv:2: column 2 (approach): expected an approach name, got nothing");
}

TEST(ResultsTableTest, QuotingErrors) {
  EXPECT_STREQ(readError("scenario,approach,m\ns,\"x,1\n").what(),
               "x.csv:2: column 2 (approach): unterminated quoted field (a field cannot span "
               "lines)");
  EXPECT_STREQ(readError("scenario,approach,m\ns,\"x\"y,1\n").what(),
               "x.csv:2: column 2 (approach): expected ',' after a closing quote, got 'y'");
}

TEST(ResultsTableTest, MissingFileIsAnErrorNamingThePath) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "benchd-results-test-does-not-exist.csv";
  try {
    (void)readResultsCsvFile(path);
    FAIL() << "no error";
  } catch (const ResultsFileError& error) {
    EXPECT_EQ(error.file(), path.string());
    EXPECT_EQ(error.line(), 0U);
    EXPECT_EQ(std::string(error.what()),
              path.string() + ": cannot open the file: No such file or directory");
  }
}

TEST(ResultsTableTest, TableChecksWhatItIsGiven) {
  EXPECT_THROW(ResultsTable({"a", "a"}), std::invalid_argument);
  EXPECT_THROW(ResultsTable({"scenario"}), std::invalid_argument);
  EXPECT_THROW(ResultsTable({""}), std::invalid_argument);
  ResultsTable table({"a", "b"});
  EXPECT_THROW(table.addRow({"s", "x", {"1"}, 0}), std::invalid_argument);
  EXPECT_THROW(table.addRow({"s", "x", {"1", "two"}, 0}), std::invalid_argument);
  EXPECT_THROW(table.addRow({"", "x", {"1", "2"}, 0}), std::invalid_argument);
  EXPECT_THROW(table.addRow({"s", "", {"1", "2"}, 0}), std::invalid_argument);
  table.addRow({"s", "x", {"1", ""}, 0});
  EXPECT_EQ(table.rows().size(), 1U);
}

TEST(ResultsTableTest, WriterRefusesLineBreaksAndQuotesWhatNeedsIt) {
  ResultsTable table({"m"});
  table.addRow({"s\nt", "x", {"1"}, 0});
  std::ostringstream out;
  EXPECT_THROW(writeResultsCsv(out, table), std::invalid_argument);

  ResultsTable spaced({"m"});
  spaced.addRow({" s", "x", {"1"}, 0});
  const std::string text = written(spaced);
  EXPECT_EQ(text, "scenario,approach,m\n\" s\",x,1\n");
  EXPECT_EQ(readResultsCsv(text, "x.csv").rows()[0].scenario, " s");
}

TEST(ResultsTableTest, SummaryRowsRenderWithTheMetricFormat) {
  SummaryRow row;
  row.scenario = "smoketest";
  row.approach = "callbacks-asio";
  row.setMetric("requests_ok", 30.0);
  row.setMetric("requests_per_second_p90", 5.4);
  row.setMetric("latency_millis_p99", 374.4);
  row.setMetric("cpu_use_percent_avg", 14.44);
  const ResultsTable table =
      toResultsTable({row, failedRow("smoketest", "threads-poco", "died", 3)});
  ASSERT_EQ(table.metricNames().size(), kMetricCount);
  for (std::size_t i = 0; i < kMetricCount; ++i) {
    EXPECT_EQ(table.metricNames()[i], kMetricNames[i]);
  }
  ASSERT_EQ(table.rows().size(), 2U);
  const ResultsRow& first = table.rows()[0];
  EXPECT_EQ(first.cells[*table.metricIndex("requests_ok")], "30");
  EXPECT_EQ(first.cells[*table.metricIndex("requests_per_second_p90")], "5.40");
  EXPECT_EQ(first.cells[*table.metricIndex("latency_millis_p99")], "374");
  EXPECT_EQ(first.cells[*table.metricIndex("cpu_use_percent_avg")], "14.4");
  EXPECT_EQ(first.cells[*table.metricIndex("heap_mib_avg")], "0");
  EXPECT_EQ(table.number(table.rows()[1], "requests_error"), 3.0);
  EXPECT_EQ(written(table).substr(0, 40), "scenario,approach,requests_ok,requests_e");
}

}  // namespace
}  // namespace benchd::results
