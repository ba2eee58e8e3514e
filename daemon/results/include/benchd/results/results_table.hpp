#pragma once

#include <benchd/results/summary_row.hpp>

#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace benchd::results {

/// results.csv as a table: `scenario,approach,<metric columns...>`, one row per (scenario,
/// approach) run. The metric columns are whatever the header names, so the original's 26-column
/// files load as well as benchd's 28 (kMetricNames). Cells keep their text as written: the
/// ranking compares the numbers as results.csv holds them, after formatMetricValue's rounding
/// (docs/metrics-and-ranking.md#number-format), exactly as the original does.
///
/// A cell is either empty or a number; an empty cell counts as 0.0 (the original's newest
/// rule). Numbers are decimal, optionally signed, with an optional exponent; "nan", "inf" and
/// "-inf" (formatMetricValue's spellings, which Python also reads) are numbers too.
///
/// A value type without shared state; const access from several threads is safe.
struct ResultsRow {
  std::string scenario;
  std::string approach;
  std::vector<std::string> cells;  ///< one per metric column, in ResultsTable::metricNames() order
  std::size_t source_line = 0;     ///< 1-based line in the file it was read from; 0 if built
};

class ResultsTable {
 public:
  /// A table with no metric columns and no rows.
  ResultsTable() = default;

  /// An empty table with these metric columns. Throws std::invalid_argument for an empty or
  /// duplicate name, or for "scenario" / "approach" (they are the two leading columns).
  explicit ResultsTable(std::vector<std::string> metric_names);

  [[nodiscard]] const std::vector<std::string>& metricNames() const noexcept {
    return metric_names_;
  }
  /// Index of a metric column in metricNames(), or nullopt.
  [[nodiscard]] std::optional<std::size_t> metricIndex(std::string_view name) const;

  [[nodiscard]] const std::vector<ResultsRow>& rows() const noexcept { return rows_; }

  /// Appends a row. Throws std::invalid_argument when the scenario or approach is empty, the cell
  /// count differs from the metric count, or a cell is neither empty nor a number.
  void addRow(ResultsRow row);

  /// The number in `row`'s cell of metric column `metric` (0.0 for an empty cell). `row` must be
  /// one of rows() (or at least have this table's cell count); `metric` < metricNames().size().
  [[nodiscard]] double number(const ResultsRow& row, std::size_t metric) const;
  /// The same by column name; nullopt when the table has no such column.
  [[nodiscard]] std::optional<double> number(const ResultsRow& row, std::string_view metric) const;

 private:
  std::vector<std::string> metric_names_;
  std::vector<ResultsRow> rows_;
};

/// A cell's number: 0.0 for "" (after trimming blanks), nullopt when the text is not a number
/// in the sense described at ResultsTable.
[[nodiscard]] std::optional<double> parseCellNumber(std::string_view cell);

/// results.csv text that cannot be read. what() is one line for the user, e.g.
/// "results/results.csv:7: column 12 (cpu_use_percent_max): expected a number or nothing, got
/// 'abc'". line() is 0 when the problem is the file as a whole, column() 0 when it is a whole
/// line; columnName() is empty when column() is 0 or beyond the header.
class ResultsFileError : public std::runtime_error {
 public:
  ResultsFileError(std::string file, std::size_t line, std::size_t column, std::string column_name,
                   std::string reason);

  [[nodiscard]] const std::string& file() const noexcept { return file_; }
  [[nodiscard]] std::size_t line() const noexcept { return line_; }
  [[nodiscard]] std::size_t column() const noexcept { return column_; }
  [[nodiscard]] const std::string& columnName() const noexcept { return column_name_; }
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_;
  std::size_t line_;
  std::size_t column_;
  std::string column_name_;
  std::string reason_;
};

/// Parses results.csv text; `source_name` names it in errors (usually the path). Accepted: a
/// UTF-8 byte-order mark, LF or CRLF line ends, blank lines (skipped, as Python's csv module
/// does), blanks around fields (trimmed), RFC 4180 quoted fields within one line. A header
/// without data rows gives an empty table. Throws ResultsFileError for an empty file, a header
/// that does not start `scenario,approach` or has no metric column, an empty or duplicate
/// column name, a row whose column count differs from the header's, an empty scenario or
/// approach, a cell that is neither empty nor a number, and an unterminated quote.
[[nodiscard]] ResultsTable readResultsCsv(std::string_view text, const std::string& source_name);

/// readResultsCsv on a file's content, with the path as source name. Throws ResultsFileError
/// (line 0) when the file cannot be read.
[[nodiscard]] ResultsTable readResultsCsvFile(const std::filesystem::path& path);

/// Writes `table` as results.csv: the header, then every row in order, '\n' line ends. Fields
/// holding ',' or '"' are quoted. Throws std::invalid_argument for a field with a line break
/// (it could not be read back).
void writeResultsCsv(std::ostream& out, const ResultsTable& table);

/// How a table made from summary rows spells its values.
enum class ValueSpelling {
  kAsTheOriginalWrites = 1,  ///< formatMetricValue: results.csv, what the original ranks
  kExact,                    ///< formatExactMetricValue: results-runs.csv, the paired tests
};

/// The table of summary rows: kMetricNames columns, and kCapacityMetric last when any row has a
/// capacity search; every value spelled as `spelling` says, rows in the given order.
[[nodiscard]] ResultsTable toResultsTable(
    const std::vector<SummaryRow>& rows,
    ValueSpelling spelling = ValueSpelling::kAsTheOriginalWrites);

}  // namespace benchd::results
