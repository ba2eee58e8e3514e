#include "api_json.hpp"

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <string>

namespace benchd::gui {
namespace {

double number(const QJsonObject& object, const char* name) {
  return object.value(QLatin1String(name)).toDouble(0.0);
}

std::size_t count(const QJsonObject& object, const char* name) {
  return static_cast<std::size_t>(std::max(0.0, number(object, name)));
}

std::string text(const QJsonObject& object, const char* name) {
  return object.value(QLatin1String(name)).toString().toStdString();
}

QJsonObject member(const QJsonObject& object, const char* name) {
  return object.value(QLatin1String(name)).toObject();
}

results::RankedResult rankedFromJson(const QJsonObject& ranked) {
  results::RankedResult result;
  result.approach = text(ranked, "approach");
  const QJsonValue value = ranked.value(QLatin1String("value"));
  result.value = value.isNull() ? std::nan("") : value.toDouble();
  result.text = text(ranked, "text");
  result.has_errors = ranked.value(QLatin1String("hasErrors")).toBool();
  result.runs = ranked.contains(QLatin1String("runs")) ? count(ranked, "runs") : 1;
  result.low = ranked.contains(QLatin1String("low")) ? number(ranked, "low") : result.value;
  result.high = ranked.contains(QLatin1String("high")) ? number(ranked, "high") : result.value;
  result.coverage = number(ranked, "coverage");
  result.lowest =
      ranked.contains(QLatin1String("lowest")) ? number(ranked, "lowest") : result.value;
  result.highest =
      ranked.contains(QLatin1String("highest")) ? number(ranked, "highest") : result.value;
  return result;
}

results::CellOutcome outcomeFromName(const QString& name) {
  if (name == QLatin1String("win")) {
    return results::CellOutcome::kWin;
  }
  if (name == QLatin1String("draw")) {
    return results::CellOutcome::kDraw;
  }
  if (name == QLatin1String("undecided")) {
    return results::CellOutcome::kUndecided;
  }
  return results::CellOutcome::kEmpty;
}

}  // namespace

results::PresentedSecond presentedSecondFromJson(const QJsonObject& second) {
  results::PresentedSecond shown;
  shown.seconds = number(second, "endSeconds");
  const QJsonObject latency = member(second, "latencyMillis");
  shown.latency_p50_millis = number(latency, "p50");
  shown.latency_p90_millis = number(latency, "p90");
  shown.latency_p99_millis = number(latency, "p99");
  shown.latency_max_millis = number(latency, "max");
  const QJsonObject rates = member(second, "requestsPerSecond");
  shown.ok_per_second = number(rates, "ok");
  shown.failed_per_second = number(rates, "failed");
  shown.failed = count(second, "requestsFailed");

  const QJsonObject host = member(second, "host");
  shown.host_cpu_user_percent = number(host, "cpuUserPercent");
  shown.host_cpu_system_percent = number(host, "cpuSystemPercent");
  shown.host_cpu_iowait_percent = number(host, "cpuIowaitPercent");
  shown.other_cpu_percent = number(host, "otherCpuPercent");
  shown.host_ram_used_percent = number(host, "ramUsedPercent");
  shown.other_ram_percent = number(host, "otherRamPercent");
  shown.host_tcp_sockets = number(host, "tcpSockets");
  shown.tcp_active_opens_per_second = number(host, "tcpActiveOpensPerSecond");
  shown.tcp_passive_opens_per_second = number(host, "tcpPassiveOpensPerSecond");
  shown.loopback_rx_mbps = number(host, "loopbackRxMbps");
  shown.loopback_tx_mbps = number(host, "loopbackTxMbps");

  const QJsonObject worker = member(second, "worker");
  shown.worker_cpu_percent = number(worker, "cpuPercent");
  shown.worker_rss_mib = number(worker, "rssMiB");
  shown.worker_heap_mib = number(worker, "heapMiB");
  shown.worker_threads = number(worker, "threads");
  shown.worker_open_fds = number(worker, "openFds");
  // null (or absent, from a daemon before it) unless a postgres row's cluster was sampled.
  if (const QJsonValue database = second.value(QLatin1String("database")); database.isObject()) {
    const QJsonObject database_json = database.toObject();
    shown.database_present = true;
    shown.database_cpu_percent = number(database_json, "cpuPercent");
    shown.database_mib = number(database_json, "mib");
  }
  return shown;
}

results::WinnersGrid winnersGridFromJson(const QJsonObject& winners) {
  results::WinnersGrid grid;
  for (const QJsonValue approach : winners.value(QLatin1String("approaches")).toArray()) {
    grid.approaches.push_back(text(approach.toObject(), "name"));
  }
  for (const QJsonValue scenario : winners.value(QLatin1String("scenarios")).toArray()) {
    grid.scenarios.push_back(scenario.toString().toStdString());
  }
  for (const QJsonValue metric_value : winners.value(QLatin1String("metrics")).toArray()) {
    const QJsonObject metric = metric_value.toObject();
    grid.metrics.push_back(text(metric, "name"));
    grid.directions.push_back(metric.value(QLatin1String("direction")).toString() ==
                                      QLatin1String("higher-is-better")
                                  ? results::Direction::kHigherIsBetter
                                  : results::Direction::kLowerIsBetter);
    std::vector<results::WinnersCell> row;
    for (const QJsonValue cell_value : metric.value(QLatin1String("cells")).toArray()) {
      const QJsonObject cell_json = cell_value.toObject();
      results::WinnersCell cell;
      cell.outcome = outcomeFromName(cell_json.value(QLatin1String("outcome")).toString());
      for (const QJsonValue ranked : cell_json.value(QLatin1String("ranked")).toArray()) {
        cell.ranked.push_back(rankedFromJson(ranked.toObject()));
      }
      cell.winner = text(cell_json, "winner");
      cell.both_top_errors = cell_json.value(QLatin1String("bothTopErrors")).toBool();
      const QJsonValue lead = cell_json.value(QLatin1String("lead"));
      // The daemon writes an infinite lead (runner-up at 0) as null.
      cell.lead = lead.isNull() ? std::numeric_limits<double>::infinity() : lead.toDouble();
      cell.alpha = number(cell_json, "alpha");
      cell.colour = text(cell_json, "colour");
      const QJsonValue p_value = cell_json.value(QLatin1String("pValue"));
      cell.p_value = p_value.isDouble() ? p_value.toDouble() : std::nan("");
      const QJsonValue adjusted = cell_json.value(QLatin1String("adjustedPValue"));
      cell.adjusted_p_value = adjusted.isDouble() ? adjusted.toDouble() : std::nan("");
      cell.lead_low = number(cell_json, "leadLow");
      cell.lead_high = number(cell_json, "leadHigh");
      cell.verdict = text(cell_json, "verdict");
      row.push_back(std::move(cell));
    }
    // A document with fewer cells than scenarios would break cell(); pad with empty cells.
    row.resize(grid.scenarios.size());
    grid.cells.push_back(std::move(row));
  }
  for (const QJsonValue standing_value : winners.value(QLatin1String("standings")).toArray()) {
    const QJsonObject standing_json = standing_value.toObject();
    results::ApproachStanding standing;
    standing.approach = text(standing_json, "approach");
    standing.rank = count(standing_json, "rank");
    standing.wins = count(standing_json, "wins");
    standing.percent = static_cast<int>(number(standing_json, "percent"));
    standing.colour = text(standing_json, "colour");
    grid.standings.push_back(std::move(standing));
  }
  grid.contests = count(winners, "contests");
  grid.draws = count(winners, "draws");
  grid.undecided = count(winners, "undecided");
  grid.draw_percent = static_cast<int>(number(winners, "drawPercent"));
  grid.rule = text(winners, "rule");
  grid.confirmed = winners.value(QLatin1String("confirmed")).toBool();
  grid.rule_note = text(winners, "ruleNote");
  grid.min_runs = winners.contains(QLatin1String("minRuns")) ? count(winners, "minRuns") : 1;
  grid.max_runs = winners.contains(QLatin1String("maxRuns")) ? count(winners, "maxRuns") : 1;
  grid.expected_false_winners = number(winners, "expectedFalseWinners");
  for (const QJsonValue result_value : winners.value(QLatin1String("incomplete")).toArray()) {
    const QJsonObject result_json = result_value.toObject();
    results::IncompleteResult result;
    result.scenario = text(result_json, "scenario");
    result.approach = text(result_json, "approach");
    result.failed_runs = count(result_json, "failedRuns");
    result.runs = count(result_json, "runs");
    result.out_of_memory = result_json.value(QLatin1String("outOfMemory")).toBool();
    result.reason = text(result_json, "reason");
    grid.incomplete.push_back(std::move(result));
  }
  return grid;
}

}  // namespace benchd::gui
