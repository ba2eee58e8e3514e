#include <benchd/common/text_trim.hpp>
#include <benchd/results/metric_format.hpp>
#include <benchd/results/results_table.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <limits>
#include <ostream>
#include <sstream>
#include <system_error>
#include <utility>

namespace benchd::results {
namespace {

constexpr std::string_view kScenarioColumn = "scenario";
constexpr std::string_view kApproachColumn = "approach";
constexpr std::size_t kLeadingColumns = 2;

std::string singleQuoted(std::string_view text) {
  std::string result = "'";
  result += text;
  result += '\'';
  return result;
}

std::string formatMessage(const std::string& file, std::size_t line, std::size_t column,
                          const std::string& column_name, const std::string& reason) {
  std::string message = file;
  if (line != 0) {
    message += ':' + std::to_string(line);
  }
  message += ": ";
  if (column != 0) {
    message += "column " + std::to_string(column);
    if (!column_name.empty()) {
      message += " (" + column_name + ')';
    }
    message += ": ";
  }
  return message + reason;
}

/// Where and why a line could not be split: the 1-based column and the reason.
struct SplitError {
  std::size_t column;
  std::string reason;
};

/// Splits one physical line into trimmed fields. Quoted fields keep their inner blanks and
/// unescape "" to ". Returns the column and reason of the first problem instead when there is one.
bool splitFields(std::string_view line, std::vector<std::string>& fields, SplitError& error) {
  fields.clear();
  std::size_t position = 0;
  while (true) {
    const std::size_t column = fields.size() + 1;
    std::size_t start = position;
    while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) {
      ++start;
    }
    if (start < line.size() && line[start] == '"') {
      std::string value;
      std::size_t at = start + 1;
      bool closed = false;
      while (at < line.size()) {
        if (line[at] == '"') {
          if (at + 1 < line.size() && line[at + 1] == '"') {
            value += '"';
            at += 2;
            continue;
          }
          closed = true;
          ++at;
          break;
        }
        value += line[at++];
      }
      if (!closed) {
        error = {column, "unterminated quoted field (a field cannot span lines)"};
        return false;
      }
      const std::size_t comma = line.find(',', at);
      const std::string_view rest = common::trimBlanks(
          line.substr(at, comma == std::string_view::npos ? std::string_view::npos : comma - at));
      if (!rest.empty()) {
        error = {column, "expected ',' after a closing quote, got " + singleQuoted(rest)};
        return false;
      }
      fields.push_back(std::move(value));
      if (comma == std::string_view::npos) {
        return true;
      }
      position = comma + 1;
      continue;
    }
    const std::size_t comma = line.find(',', position);
    if (comma == std::string_view::npos) {
      fields.emplace_back(common::trimBlanks(line.substr(position)));
      return true;
    }
    fields.emplace_back(common::trimBlanks(line.substr(position, comma - position)));
    position = comma + 1;
  }
}

bool needsQuotes(std::string_view field) {
  return field.find_first_of(",\"") != std::string_view::npos ||
         (!field.empty() && (common::trimBlanks(field).size() != field.size()));
}

void writeField(std::ostream& out, std::string_view field) {
  if (field.find_first_of("\r\n") != std::string_view::npos) {
    throw std::invalid_argument("results.csv field " + singleQuoted(field) +
                                " holds a line break, which results.csv cannot carry");
  }
  if (!needsQuotes(field)) {
    out << field;
    return;
  }
  out << '"';
  for (const char c : field) {
    if (c == '"') {
      out << '"';
    }
    out << c;
  }
  out << '"';
}

/// The lines of `text` with their 1-based numbers, without '\r' before '\n'.
std::vector<std::pair<std::size_t, std::string_view>> numberedLines(std::string_view text) {
  std::vector<std::pair<std::size_t, std::string_view>> lines;
  std::size_t number = 1;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.emplace_back(number++, line);
    if (end == std::string_view::npos) {
      break;
    }
    text.remove_prefix(end + 1);
  }
  return lines;
}

}  // namespace

std::optional<double> parseCellNumber(std::string_view cell) {
  std::string_view text = common::trimBlanks(cell);
  if (text.empty()) {
    return 0.0;
  }
  // from_chars takes no '+', Python's float() does.
  if (text.front() == '+') {
    text.remove_prefix(1);
    if (text.empty() || text.front() == '-' || text.front() == '+') {
      return std::nullopt;
    }
  }
  double value = 0.0;
  const auto result =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::general);
  // Out-of-range values (1e999) come back as errc::result_out_of_range; Python reads them as
  // inf, but no metric is that large, so they are refused as typos.
  if (result.ec != std::errc() || result.ptr != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

ResultsTable::ResultsTable(std::vector<std::string> metric_names)
    : metric_names_(std::move(metric_names)) {
  for (std::size_t i = 0; i < metric_names_.size(); ++i) {
    const std::string& name = metric_names_[i];
    if (name.empty()) {
      throw std::invalid_argument("metric column " + std::to_string(i + 1) + " has no name");
    }
    if (name == kScenarioColumn || name == kApproachColumn) {
      throw std::invalid_argument("'" + name + "' cannot be a metric column");
    }
    if (std::find(metric_names_.begin(), metric_names_.begin() + static_cast<std::ptrdiff_t>(i),
                  name) != metric_names_.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::invalid_argument("duplicate metric column '" + name + "'");
    }
  }
}

std::optional<std::size_t> ResultsTable::metricIndex(std::string_view name) const {
  const auto found = std::find(metric_names_.begin(), metric_names_.end(), name);
  if (found == metric_names_.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(found - metric_names_.begin());
}

void ResultsTable::addRow(ResultsRow row) {
  if (row.scenario.empty() || row.approach.empty()) {
    throw std::invalid_argument("a results row needs a scenario and an approach");
  }
  if (row.cells.size() != metric_names_.size()) {
    throw std::invalid_argument("results row " + row.scenario + "/" + row.approach + " has " +
                                std::to_string(row.cells.size()) + " cells for " +
                                std::to_string(metric_names_.size()) + " metric columns");
  }
  for (std::size_t i = 0; i < row.cells.size(); ++i) {
    if (!parseCellNumber(row.cells[i])) {
      throw std::invalid_argument("results row " + row.scenario + "/" + row.approach + ", " +
                                  metric_names_[i] + ": expected a number or nothing, got " +
                                  singleQuoted(row.cells[i]));
    }
  }
  rows_.push_back(std::move(row));
}

double ResultsTable::number(const ResultsRow& row, std::size_t metric) const {
  // addRow admitted only numbers, so this cannot fail for rows of this table.
  return parseCellNumber(row.cells.at(metric)).value_or(0.0);
}

std::optional<double> ResultsTable::number(const ResultsRow& row, std::string_view metric) const {
  const auto index = metricIndex(metric);
  if (!index) {
    return std::nullopt;
  }
  return number(row, *index);
}

ResultsFileError::ResultsFileError(std::string file, std::size_t line, std::size_t column,
                                   std::string column_name, std::string reason)
    : std::runtime_error(formatMessage(file, line, column, column_name, reason)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      column_name_(std::move(column_name)),
      reason_(std::move(reason)) {}

ResultsTable readResultsCsv(std::string_view text, const std::string& source_name) {
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text.remove_prefix(kByteOrderMark.size());
  }
  const auto fail = [&source_name](std::size_t line, std::size_t column, std::string column_name,
                                   std::string reason) {
    throw ResultsFileError(source_name, line, column, std::move(column_name), std::move(reason));
  };

  std::vector<std::string> fields;
  SplitError split_error;
  std::optional<std::vector<std::string>> header;
  std::optional<ResultsTable> table;
  for (const auto& [number, line] : numberedLines(text)) {
    if (common::trimBlanks(line).empty()) {
      continue;
    }
    if (!splitFields(line, fields, split_error)) {
      const std::string name = header && split_error.column <= header->size()
                                   ? (*header)[split_error.column - 1]
                                   : std::string();
      fail(number, split_error.column, name, split_error.reason);
    }
    if (!header) {
      const std::string expected_layout = "a header 'scenario,approach,<metric>,...'";
      if (fields[0] != kScenarioColumn) {
        fail(number, 1, "", "expected " + expected_layout + ", got " + singleQuoted(fields[0]));
      }
      if (fields.size() < 2 || fields[1] != kApproachColumn) {
        fail(number, 2, "",
             "expected " + expected_layout + ", got " +
                 (fields.size() < 2 ? std::string("nothing") : singleQuoted(fields[1])));
      }
      if (fields.size() == kLeadingColumns) {
        fail(number, 0, "", "expected at least one metric column after 'approach'");
      }
      for (std::size_t i = kLeadingColumns; i < fields.size(); ++i) {
        if (fields[i].empty()) {
          fail(number, i + 1, "", "expected a column name, got nothing");
        }
        const auto earlier =
            std::find(fields.begin(), fields.begin() + static_cast<long>(i), fields[i]);
        if (earlier != fields.begin() + static_cast<long>(i)) {
          fail(number, i + 1, fields[i],
               "duplicate column name, also column " +
                   std::to_string(static_cast<std::size_t>(earlier - fields.begin()) + 1));
        }
      }
      header = fields;
      table.emplace(std::vector<std::string>(fields.begin() + kLeadingColumns, fields.end()));
      continue;
    }
    if (fields.size() != header->size()) {
      fail(number, 0, "",
           "expected " + std::to_string(header->size()) +
               " comma-separated columns (as the header), got " + std::to_string(fields.size()));
    }
    if (fields[0].empty()) {
      fail(number, 1, (*header)[0], "expected a scenario name, got nothing");
    }
    if (fields[1].empty()) {
      fail(number, 2, (*header)[1], "expected an approach name, got nothing");
    }
    for (std::size_t i = kLeadingColumns; i < fields.size(); ++i) {
      if (!parseCellNumber(fields[i])) {
        fail(number, i + 1, (*header)[i],
             "expected a number or nothing, got " + singleQuoted(fields[i]));
      }
    }
    ResultsRow row;
    row.scenario = std::move(fields[0]);
    row.approach = std::move(fields[1]);
    row.cells.assign(std::make_move_iterator(fields.begin() + kLeadingColumns),
                     std::make_move_iterator(fields.end()));
    row.source_line = number;
    table->addRow(std::move(row));
  }
  if (!table) {
    fail(0, 0, "", "empty file, expected a header 'scenario,approach,<metric>,...'");
  }
  return std::move(*table);
}

ResultsTable readResultsCsvFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const std::error_code error(errno, std::generic_category());
    throw ResultsFileError(path.string(), 0, 0, "", "cannot open the file: " + error.message());
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    throw ResultsFileError(path.string(), 0, 0, "", "cannot read the file");
  }
  return readResultsCsv(content.str(), path.string());
}

void writeResultsCsv(std::ostream& out, const ResultsTable& table) {
  out << kScenarioColumn << ',' << kApproachColumn;
  for (const std::string& name : table.metricNames()) {
    out << ',';
    writeField(out, name);
  }
  out << '\n';
  for (const ResultsRow& row : table.rows()) {
    writeField(out, row.scenario);
    out << ',';
    writeField(out, row.approach);
    for (const std::string& cell : row.cells) {
      out << ',';
      writeField(out, cell);
    }
    out << '\n';
  }
}

ResultsTable toResultsTable(const std::vector<SummaryRow>& rows, ValueSpelling spelling) {
  std::vector<std::string> columns(kMetricNames.begin(), kMetricNames.end());
  // Only runs with a capacity row have the column, so every other results.csv keeps the
  // original's shape.
  const bool with_capacity = std::any_of(
      rows.begin(), rows.end(), [](const SummaryRow& row) { return row.capacity.has_value(); });
  if (with_capacity) {
    columns.emplace_back(kCapacityMetric);
  }
  ResultsTable table(std::move(columns));
  const auto spell = [spelling](double value) {
    return spelling == ValueSpelling::kExact ? formatExactMetricValue(value)
                                             : formatMetricValue(value);
  };
  for (const SummaryRow& summary : rows) {
    ResultsRow row;
    row.scenario = summary.scenario;
    row.approach = summary.approach;
    row.cells.reserve(table.metricNames().size());
    for (const double value : summary.metrics) {
      row.cells.push_back(spell(value));
    }
    if (with_capacity) {
      row.cells.push_back(spell(summary.capacity ? summary.capacity->requests_per_second
                                                 : std::numeric_limits<double>::quiet_NaN()));
    }
    table.addRow(std::move(row));
  }
  return table;
}

}  // namespace benchd::results
