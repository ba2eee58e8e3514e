#include "scenario_columns.hpp"
#include "text_fields.hpp"

#include <benchd/scenario/phase_limits.hpp>
#include <benchd/scenario/row_check.hpp>
#include <benchd/scenario/scenario_file.hpp>
#include <benchd/scenario/scenario_file_error.hpp>
#include <benchd/scenario/workload_catalog.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

namespace benchd::scenario {
namespace {

// 1-based column numbers, as error messages count them.
constexpr std::size_t kNameColumn = 1;
constexpr std::size_t kWorkloadColumn = 2;
constexpr std::size_t kProfilesColumn = 3;
constexpr std::size_t kDelayCallDepthColumn = 4;
constexpr std::size_t kDelayMillisColumn = 5;
constexpr std::size_t kConnectionsColumn = 6;
constexpr std::size_t kRequestsPerSecondColumn = 7;
constexpr std::size_t kWarmupColumn = 8;
constexpr std::size_t kTestColumn = 9;
constexpr std::size_t kCapacityGoalColumn = 10;
constexpr std::size_t kStreamsColumn = 11;
constexpr std::size_t kRequestCountColumn = 12;

/// Where in the file a row is, for error messages.
struct RowLocation {
  const std::string& file;
  std::size_t line;

  [[noreturn]] void fail(std::size_t column, std::string reason) const {
    throw ScenarioFileError(file, line, column, std::move(reason));
  }
};

/// What a numeric column accepts; the text is what error messages say was expected.
struct IntegerRule {
  std::uint32_t minimum;
  std::uint32_t maximum;
  std::string expected;
};

constexpr std::uint32_t kNoMaximum = std::numeric_limits<std::uint32_t>::max();
const IntegerRule kZeroOrMore{0, kNoMaximum, "a non-negative integer"};
const IntegerRule kOneOrMore{1, kNoMaximum, "a positive integer"};
const IntegerRule kRateOrNothing{1, kNoMaximum, "a positive integer, or nothing for no rate"};
const IntegerRule kRequestCountRule{1, kNoMaximum,
                                    "a positive integer, or nothing for a timed test phase"};
const IntegerRule kStreamsRule{
    1, kMaxStreamsPerConnection,
    "an integer from 1 to " + std::to_string(kMaxStreamsPerConnection) + ", or nothing for 1"};

IntegerRule phaseSecondsRule(std::uint32_t minimum) {
  return {minimum, kMaxPhaseSeconds, phaseSecondsExpectation(minimum)};
}

std::string singleQuoted(std::string_view text) {
  std::string result = "'";
  result += text;
  result += '\'';
  return result;
}

std::uint32_t readInteger(const RowLocation& where, std::size_t column, std::string_view text,
                          const IntegerRule& rule) {
  const std::string expected = "expected " + rule.expected + ", got ";
  if (text.empty()) {
    where.fail(column, expected + "nothing");
  }
  if (text.find_first_not_of("0123456789") != std::string_view::npos) {
    where.fail(column, expected + singleQuoted(text));
  }
  std::uint32_t value = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
  if (result.ec == std::errc::result_out_of_range) {
    where.fail(column, expected + singleQuoted(text) + " (larger than 4294967295)");
  }
  if (value < rule.minimum || value > rule.maximum) {
    where.fail(column, expected + singleQuoted(text));
  }
  return value;
}

/// A scenario name becomes a folder name, so it is kept to a portable alphabet.
bool isValidScenarioName(std::string_view name) {
  if (name.empty() || name.front() == '.') {
    return false;
  }
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> readProfiles(const RowLocation& where, std::string_view text) {
  std::vector<std::string> profiles;
  if (text.empty()) {
    return profiles;
  }
  for (const std::string_view part : splitAt(text, '|')) {
    const std::string_view profile = trimBlanks(part);
    if (profile.empty()) {
      where.fail(kProfilesColumn,
                 "expected profile names separated by '|', got " + singleQuoted(text));
    }
    profiles.emplace_back(profile);
  }
  // A nested call has one client: two would leave the plugin to pick one silently.
  const auto clients = std::count_if(profiles.begin(), profiles.end(), [](const std::string& p) {
    return p.starts_with(kClientProfilePrefix);
  });
  if (clients > 1) {
    where.fail(kProfilesColumn, "at most one client profile (" + std::string(kClientProfilePrefix) +
                                    "...) per row, got " + singleQuoted(text));
  }
  return profiles;
}

/// The row's numbers must suit its workload (see checkRowFitsWorkload in row_check.hpp), reported
/// at the column the problem is about.
void checkRowFits(const RowLocation& where, const ScenarioRow& row, const Workload& workload) {
  const std::optional<RowProblem> problem =
      checkRowFitsWorkload(workload, row.connections, row.requests_per_second);
  if (problem) {
    where.fail(problem->column == RowColumn::kRequestsPerSecond ? kRequestsPerSecondColumn
                                                                : kConnectionsColumn,
               problem->reason);
  }
}

/// A capacity search runs fixed-rate trials, so its workload must set a constant arrival rate,
/// which each trial replaces (its requestsPerSecond is the first trial's).
CapacityGoal readCapacityGoal(const RowLocation& where, std::string_view text,
                              const Workload& workload) {
  CapacityGoal goal;
  try {
    goal = CapacityGoal::parse(text);
  } catch (const std::invalid_argument& error) {
    where.fail(kCapacityGoalColumn, error.what());
  }
  const bool constant_rate =
      !workload.sub_scenarios.empty() &&
      std::all_of(workload.sub_scenarios.begin(), workload.sub_scenarios.end(),
                  [](const SubScenario& sub) {
                    return sub.executor == ExecutorKind::kConstantArrivalRate;
                  });
  if (!constant_rate) {
    where.fail(kCapacityGoalColumn,
               "a capacity search needs a constant-arrival-rate workload "
               "(e.g. get-time-arrival-rate), got " +
                   singleQuoted(workload.name));
  }
  return goal;
}

ScenarioRow readRow(const RowLocation& where, const std::vector<std::string_view>& raw_fields,
                    const WorkloadCatalog& workloads) {
  if (raw_fields.size() < kRequiredScenarioColumns || raw_fields.size() > kScenarioColumns.size()) {
    // The original's older files have no serverProfiles column.
    const std::string hint = raw_fields.size() == kRequiredScenarioColumns - 1
                                 ? " (an older 8-column file? add an empty serverProfiles column "
                                   "after k6Config)"
                                 : "";
    where.fail(0, "expected " + std::to_string(kRequiredScenarioColumns) +
                      " comma-separated columns (or 10 with a capacityGoal, 11 with "
                      "streamsPerConnection, " +
                      std::to_string(kScenarioColumns.size()) + " with requestCount), got " +
                      std::to_string(raw_fields.size()) + hint);
  }
  std::vector<std::string_view> fields;
  fields.reserve(raw_fields.size());
  for (const std::string_view field : raw_fields) {
    fields.push_back(trimBlanks(field));
  }
  const auto field = [&fields](std::size_t column) { return fields[column - 1]; };

  ScenarioRow row;
  row.source_line = where.line;

  if (!isValidScenarioName(field(kNameColumn))) {
    where.fail(kNameColumn,
               "expected a name of letters, digits, '-', '_' and '.' (not starting with '.'), "
               "got " +
                   (field(kNameColumn).empty() ? std::string("nothing")
                                               : singleQuoted(field(kNameColumn))));
  }
  row.name = field(kNameColumn);

  const std::string_view workload_name = workloadNameOf(field(kWorkloadColumn));
  if (workload_name.empty()) {
    where.fail(kWorkloadColumn, "expected a workload name, got nothing");
  }
  const Workload* workload = workloads.find(workload_name);
  if (workload == nullptr) {
    where.fail(kWorkloadColumn, "unknown workload " + singleQuoted(field(kWorkloadColumn)) +
                                    " (known: " + workloads.describeNames() + ")");
  }
  row.workload = workload->name;

  row.server_profiles = readProfiles(where, field(kProfilesColumn));
  row.delay_call_depth =
      readInteger(where, kDelayCallDepthColumn, field(kDelayCallDepthColumn), kZeroOrMore);
  row.delay_millis = readInteger(where, kDelayMillisColumn, field(kDelayMillisColumn), kZeroOrMore);
  row.connections = readInteger(where, kConnectionsColumn, field(kConnectionsColumn), kOneOrMore);
  if (!field(kRequestsPerSecondColumn).empty()) {
    row.requests_per_second = readInteger(where, kRequestsPerSecondColumn,
                                          field(kRequestsPerSecondColumn), kRateOrNothing);
  }
  row.warmup_seconds = readInteger(where, kWarmupColumn, field(kWarmupColumn), phaseSecondsRule(0));
  row.test_seconds = readInteger(where, kTestColumn, field(kTestColumn), phaseSecondsRule(1));

  checkRowFits(where, row, *workload);
  if (fields.size() >= kCapacityGoalColumn && !field(kCapacityGoalColumn).empty()) {
    row.capacity_goal = readCapacityGoal(where, field(kCapacityGoalColumn), *workload);
  }
  if (fields.size() >= kStreamsColumn && !field(kStreamsColumn).empty()) {
    row.streams_per_connection =
        readInteger(where, kStreamsColumn, field(kStreamsColumn), kStreamsRule);
    const bool http2 =
        std::any_of(row.server_profiles.begin(), row.server_profiles.end(),
                    [](const std::string& profile) { return profile == "h2" || profile == "h2c"; });
    if (row.streams_per_connection > 1 && !http2) {
      where.fail(kStreamsColumn, std::to_string(row.streams_per_connection) +
                                     " streams per connection need the h2 or h2c profile "
                                     "(HTTP/1.1 has no streams)");
    }
  }
  if (fields.size() >= kRequestCountColumn && !field(kRequestCountColumn).empty()) {
    row.request_count =
        readInteger(where, kRequestCountColumn, field(kRequestCountColumn), kRequestCountRule);
    if (row.capacity_goal) {
      where.fail(kRequestCountColumn,
                 "a request count and a capacityGoal exclude each other (a capacity search "
                 "runs timed trials); leave one of the two columns empty");
    }
  }
  return row;
}

bool isSkipped(std::string_view line) {
  const std::string_view trimmed = trimBlanks(line);
  return trimmed.empty() || trimmed.front() == '#';
}

}  // namespace

std::vector<ScenarioRow> parseScenarioText(std::string_view text, std::string_view source_name,
                                           const WorkloadCatalog& workloads) {
  const std::string file(source_name);
  const std::vector<std::string_view> lines = splitLines(text);
  std::vector<ScenarioRow> rows;
  std::map<std::string, std::size_t, std::less<>> line_of_name;
  // Line 1 is the header, whatever it says (the original's files spell it several ways).
  for (std::size_t index = 1; index < lines.size(); ++index) {
    if (isSkipped(lines[index])) {
      continue;
    }
    const RowLocation where{file, index + 1};
    ScenarioRow row = readRow(where, splitAt(lines[index], ','), workloads);
    const auto [first, inserted] = line_of_name.emplace(row.name, row.source_line);
    if (!inserted) {
      where.fail(kNameColumn, "duplicate scenario name " + singleQuoted(row.name) +
                                  " (first used on line " + std::to_string(first->second) + ")");
    }
    rows.push_back(std::move(row));
  }
  if (rows.empty()) {
    throw ScenarioFileError(file, 0, 0,
                            "no scenario rows (the first line is a header and is always skipped)");
  }
  return rows;
}

std::vector<ScenarioRow> loadScenarioFile(const std::filesystem::path& path,
                                          const WorkloadCatalog& workloads) {
  std::string text;
  try {
    text = readWholeFile(path);
  } catch (const std::runtime_error& error) {
    throw ScenarioFileError(path.string(), 0, 0, error.what());
  }
  return parseScenarioText(text, path.string(), workloads);
}

}  // namespace benchd::scenario
