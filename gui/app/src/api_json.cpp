#include "api_json.hpp"

#include <benchd/measurement/error_class.hpp>

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

/// Seconds as the API writes them (microseconds / 1e6) back to whole microseconds.
std::int64_t micros(double seconds) {
  return std::llround(seconds * 1e6);
}

/// MiB as the API writes them (bytes / 2^20, exact in a double) back to bytes.
std::uint64_t bytesOfMebibytes(double mebibytes) {
  return static_cast<std::uint64_t>(std::llround(std::max(0.0, mebibytes) * 1024.0 * 1024.0));
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

results::SecondRecord secondRecordFromJson(const QJsonObject& second) {
  results::SecondRecord record;
  results::LoadSecond& load = record.load;
  load.index = static_cast<std::uint32_t>(count(second, "second"));
  load.start_micros = micros(number(second, "startSeconds"));
  load.duration_micros = micros(number(second, "durationSeconds"));
  load.end_epoch_millis = static_cast<std::int64_t>(number(second, "endEpochMillis"));
  load.active_vus = static_cast<std::uint32_t>(count(second, "activeVus"));
  load.counters.requests_ok = count(second, "requestsOk");
  load.intended_requests_per_second = number(member(second, "requestsPerSecond"), "intended");
  const QJsonObject latency = member(second, "latencyMillis");
  load.latency.p50 = number(latency, "p50");
  load.latency.p90 = number(latency, "p90");
  load.latency.p99 = number(latency, "p99");
  load.latency.max = number(latency, "max");
  const QJsonObject errors = member(second, "errors");
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    const std::string_view name = measurement::errorClassName(error_class);
    load.counters.errors[error_class] = count(errors, std::string(name).c_str());
  }

  results::SystemSample& system = record.system;
  system.epoch_millis = load.end_epoch_millis;
  const QJsonObject host_json = member(second, "host");
  sampling::HostSample& host = system.host;
  host.epoch_millis = load.end_epoch_millis;
  host.cpu_user_percent = number(host_json, "cpuUserPercent");
  host.cpu_system_percent = number(host_json, "cpuSystemPercent");
  host.cpu_iowait_percent = number(host_json, "cpuIowaitPercent");
  host.ram_used_percent = number(host_json, "ramUsedPercent");
  host.ram_total_bytes = count(host_json, "ramTotalBytes");
  host.cpus = static_cast<std::uint32_t>(count(host_json, "cpus"));
  host.tcp_sockets_in_use = count(host_json, "tcpSockets");
  host.loopback_rx_bytes = count(host_json, "loopbackRxBytes");
  host.loopback_tx_bytes = count(host_json, "loopbackTxBytes");
  host.tcp_active_opens = count(host_json, "tcpActiveOpens");
  host.tcp_passive_opens = count(host_json, "tcpPassiveOpens");
  host.interval_seconds = number(host_json, "intervalSeconds");
  const QJsonObject worker = member(second, "worker");
  system.worker.present = true;
  system.worker.cpu_percent = number(worker, "cpuPercent");
  system.worker.rss_bytes = bytesOfMebibytes(number(worker, "rssMiB"));
  system.worker.threads = count(worker, "threads");
  system.worker.open_fds = count(worker, "openFds");
  // The API writes 0 for a worker that has not reported its heap yet; the model says "none".
  if (const double heap = number(worker, "heapMiB"); heap > 0.0) {
    system.worker_stats = results::WorkerStats{
        load.end_epoch_millis, static_cast<std::int64_t>(bytesOfMebibytes(heap)), {}};
  }
  system.generator.present = true;
  system.generator.cpu_percent = number(second, "generatorCpuPercent");
  system.generator.rss_bytes = bytesOfMebibytes(number(second, "generatorRssMiB"));
  // null (or absent, from a daemon before it) unless a postgres row's cluster was sampled.
  if (const QJsonValue database = second.value(QLatin1String("database")); database.isObject()) {
    const QJsonObject database_json = database.toObject();
    system.database.present = true;
    system.database.cpu_percent = number(database_json, "cpuPercent");
    system.database.rss_bytes = bytesOfMebibytes(number(database_json, "mib"));
    system.database.threads = count(database_json, "processes");
  }
  return record;
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
  return grid;
}

}  // namespace benchd::gui
