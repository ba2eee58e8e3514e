#include <benchd/results/winners.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace benchd::results {
namespace {

constexpr std::string_view kErrorsMetric = "requests_error";

/// Python's round(x, 2): the decimal nearest to the exact binary value, ties to even. to_chars
/// with a precision rounds exactly that way, so printing and reading back reproduces it.
double roundTo2Decimals(double value) {
  std::array<char, 64> buffer{};
  const auto printed = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                     std::chars_format::fixed, 2);
  double rounded = 0.0;
  std::from_chars(buffer.data(), printed.ptr, rounded);
  return rounded;
}

/// Round half to even, as Python's round() for a float.
long roundHalfEven(double value) {
  const double lower = std::floor(value);
  const double fraction = value - lower;
  double result = lower;
  if (fraction > 0.5 || (fraction == 0.5 && std::fmod(lower, 2.0) != 0.0)) {
    result = lower + 1.0;
  }
  return static_cast<long>(result);
}

bool sameValue(double a, double b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

/// One approach's row in one scenario.
struct Entry {
  std::string approach;
  const ResultsRow* row = nullptr;
  bool has_errors = false;
};

struct ScenarioEntries {
  std::string scenario;
  std::vector<Entry> entries;  ///< in first-appearance order of the approach in the scenario
};

std::vector<ScenarioEntries> entriesByScenario(const ResultsTable& table,
                                               const std::vector<std::string>& approaches) {
  const auto errors_column = table.metricIndex(kErrorsMetric);
  std::vector<ScenarioEntries> scenarios;
  for (const ResultsRow& row : table.rows()) {
    auto scenario =
        std::find_if(scenarios.begin(), scenarios.end(),
                     [&row](const ScenarioEntries& s) { return s.scenario == row.scenario; });
    if (scenario == scenarios.end()) {
      scenarios.push_back({row.scenario, {}});
      scenario = std::prev(scenarios.end());
    }
    if (std::find(approaches.begin(), approaches.end(), row.approach) == approaches.end()) {
      continue;
    }
    const bool has_errors = errors_column && table.number(row, *errors_column) > 0.0;
    auto entry = std::find_if(scenario->entries.begin(), scenario->entries.end(),
                              [&row](const Entry& e) { return e.approach == row.approach; });
    if (entry == scenario->entries.end()) {
      scenario->entries.push_back({row.approach, &row, has_errors});
    } else {
      entry->row = &row;
      entry->has_errors = has_errors;
    }
  }
  return scenarios;
}

/// Whether `a` ranks before `b` (strictly): error-free first, then numbers before NaN, then the
/// better value.
bool ranksBefore(const RankedResult& a, const RankedResult& b, Direction direction) {
  if (a.has_errors != b.has_errors) {
    return !a.has_errors;
  }
  const bool a_nan = std::isnan(a.value);
  const bool b_nan = std::isnan(b.value);
  if (a_nan || b_nan) {
    return !a_nan && b_nan;
  }
  return direction == Direction::kHigherIsBetter ? a.value > b.value : a.value < b.value;
}

WinnersCell rankCell(const ResultsTable& table, std::size_t metric, Direction direction,
                     const std::vector<Entry>& entries, const std::vector<std::string>& approaches,
                     const std::vector<std::string>& colours) {
  WinnersCell cell;
  if (entries.empty()) {
    return cell;
  }
  for (const Entry& entry : entries) {
    const double value = table.number(*entry.row, metric);
    cell.ranked.push_back(
        {entry.approach, value, entry.row->cells[metric], entry.has_errors, 1, value, value, 0.0});
  }
  std::stable_sort(cell.ranked.begin(), cell.ranked.end(),
                   [direction](const RankedResult& a, const RankedResult& b) {
                     return ranksBefore(a, b, direction);
                   });
  const RankedResult& top = *cell.top();
  const RankedResult& runner_up = *cell.runnerUp();
  cell.both_top_errors = top.has_errors && runner_up.has_errors;
  const bool single = cell.ranked.size() == 1;
  const bool draw = cell.both_top_errors || (!single && sameValue(top.value, runner_up.value));
  cell.outcome = draw ? CellOutcome::kDraw : CellOutcome::kWin;
  if (!draw) {
    cell.winner = top.approach;
  }
  if (!single) {
    cell.lead = winningLead(top.value, runner_up.value);
    cell.alpha = leadAlpha(cell.lead);
  }
  if (cell.both_top_errors) {
    cell.colour = kBothErrorsColour;
  } else {
    const auto index = static_cast<std::size_t>(
        std::find(approaches.begin(), approaches.end(), top.approach) - approaches.begin());
    cell.colour = colours[index];
  }
  return cell;
}

}  // namespace

std::string metricPrefix(std::string_view metric) {
  std::string prefix(metric.substr(0, metric.find('_')));
  std::transform(prefix.begin(), prefix.end(), prefix.begin(), [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return prefix;
}

Direction metricDirection(std::string_view metric) {
  // Case-sensitive, as the original's `"error" not in metric`.
  if (metric.find("error") != std::string_view::npos) {
    return Direction::kLowerIsBetter;
  }
  const std::string prefix = metricPrefix(metric);
  return prefix == "requests" || prefix == "sockets" ? Direction::kHigherIsBetter
                                                     : Direction::kLowerIsBetter;
}

double winningLead(double top, double runner_up) {
  const double delta = std::abs(top - runner_up);
  if (delta == 0.0 && runner_up == 0.0) {
    return 0.0;
  }
  if (runner_up == 0.0) {
    return std::numeric_limits<double>::infinity();
  }
  return delta / runner_up;
}

double leadAlpha(double lead) {
  if (std::isnan(lead)) {
    return 0.0;
  }
  return roundTo2Decimals(1.0 - std::exp(-7.0 * std::clamp(lead, 0.0, 1.0)));
}

int roundedPercent(std::size_t part, std::size_t whole) {
  if (whole == 0) {
    return 0;
  }
  return static_cast<int>(
      roundHalfEven(100.0 * static_cast<double>(part) / static_cast<double>(whole)));
}

std::vector<std::string> approachColours(const std::vector<std::string>& approaches) {
  std::vector<std::string> colours;
  std::size_t others = 0;
  for (const std::string& approach : approaches) {
    if (approach == "loom-netty") {
      colours.emplace_back("forestgreen");
    } else if (approach == "webflux-netty") {
      colours.emplace_back("royalblue");
    } else {
      colours.emplace_back(kApproachPalette[others++ % std::size(kApproachPalette)]);
    }
  }
  return colours;
}

std::string_view colourHex(std::string_view colour_name) {
  static constexpr std::pair<std::string_view, std::string_view> kHex[] = {
      {"forestgreen", "#228b22"}, {"royalblue", "#4169e1"}, {"goldenrod", "#daa520"},
      {"maroon", "#800000"},      {"black", "#000000"},     {"darkorchid", "#9932cc"},
      {"darkcyan", "#008b8b"},    {"chocolate", "#d2691e"}, {"slategray", "#708090"},
      {"white", "#ffffff"},
  };
  for (const auto& [name, hex] : kHex) {
    if (name == colour_name) {
      return hex;
    }
  }
  return {};
}

const RankedResult* WinnersCell::top() const {
  return ranked.empty() ? nullptr : &ranked.front();
}

const RankedResult* WinnersCell::runnerUp() const {
  if (ranked.empty()) {
    return nullptr;
  }
  return ranked.size() == 1 ? &ranked.front() : &ranked[1];
}

const ApproachStanding* WinnersGrid::standing(std::string_view approach) const {
  for (const ApproachStanding& entry : standings) {
    if (entry.approach == approach) {
      return &entry;
    }
  }
  return nullptr;
}

WinnersGrid computeWinners(const ResultsTable& table, const std::vector<std::string>& approaches) {
  WinnersGrid grid;
  if (approaches.empty()) {
    for (const ResultsRow& row : table.rows()) {
      grid.approaches.push_back(row.approach);
    }
    std::sort(grid.approaches.begin(), grid.approaches.end());
    grid.approaches.erase(std::unique(grid.approaches.begin(), grid.approaches.end()),
                          grid.approaches.end());
  } else {
    for (const std::string& approach : approaches) {
      if (std::find(grid.approaches.begin(), grid.approaches.end(), approach) !=
          grid.approaches.end()) {
        throw std::invalid_argument("approach '" + approach + "' is listed twice");
      }
      grid.approaches.push_back(approach);
    }
  }
  const std::vector<std::string> colours = approachColours(grid.approaches);
  const std::vector<ScenarioEntries> scenarios = entriesByScenario(table, grid.approaches);
  for (const ScenarioEntries& scenario : scenarios) {
    grid.scenarios.push_back(scenario.scenario);
  }
  grid.metrics = table.metricNames();

  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    const Direction direction = metricDirection(grid.metrics[metric]);
    grid.directions.push_back(direction);
    std::vector<WinnersCell>& row = grid.cells.emplace_back();
    for (const ScenarioEntries& scenario : scenarios) {
      row.push_back(rankCell(table, metric, direction, scenario.entries, grid.approaches, colours));
    }
  }
  grid.rule = "original";
  recountStandings(grid);
  return grid;
}

void recountStandings(WinnersGrid& grid) {
  std::vector<std::size_t> wins(grid.approaches.size(), 0);
  grid.contests = 0;
  grid.draws = 0;
  grid.undecided = 0;
  for (const std::vector<WinnersCell>& row : grid.cells) {
    for (const WinnersCell& cell : row) {
      if (cell.outcome != CellOutcome::kEmpty) {
        ++grid.contests;
      }
      if (cell.outcome == CellOutcome::kDraw) {
        ++grid.draws;
      }
      if (cell.outcome == CellOutcome::kUndecided) {
        ++grid.undecided;
      }
      if (cell.outcome == CellOutcome::kWin) {
        const auto index = static_cast<std::size_t>(
            std::find(grid.approaches.begin(), grid.approaches.end(), cell.winner) -
            grid.approaches.begin());
        ++wins.at(index);
      }
    }
  }
  const std::vector<std::string> colours = approachColours(grid.approaches);
  std::vector<std::size_t> order(grid.approaches.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&wins](std::size_t a, std::size_t b) { return wins[a] > wins[b]; });
  grid.standings.clear();
  for (std::size_t position = 0; position < order.size(); ++position) {
    const std::size_t index = order[position];
    grid.standings.push_back({grid.approaches[index], position + 1, wins[index],
                              roundedPercent(wins[index], grid.contests), colours[index]});
  }
  grid.draw_percent = roundedPercent(grid.draws + grid.undecided, grid.contests);
}

}  // namespace benchd::results
