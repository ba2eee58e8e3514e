#include "results_json.hpp"

#include <benchd/common/units.hpp>
#include <benchd/measurement/error_class.hpp>
#include <benchd/results/presented_second.hpp>
#include <benchd/results/winners_markdown.hpp>

namespace benchd::control {
namespace {

std::string_view cellOutcomeName(results::CellOutcome outcome) {
  switch (outcome) {
    case results::CellOutcome::kWin:
      return "win";
    case results::CellOutcome::kDraw:
      return "draw";
    case results::CellOutcome::kUndecided:
      return "undecided";
    case results::CellOutcome::kEmpty:
      break;
  }
  return "empty";
}

std::string_view changeClassName(results::ChangeClass change) {
  switch (change) {
    case results::ChangeClass::kImproved:
      return "improved";
    case results::ChangeClass::kRegressed:
      return "regressed";
    case results::ChangeClass::kNeutral:
      break;
  }
  return "neutral";
}

void writeRanked(JsonWriter& json, const results::RankedResult& ranked) {
  json.StartObject();
  field(json, "approach", ranked.approach);
  field(json, "value", ranked.value);
  field(json, "text", ranked.text);
  field(json, "hasErrors", ranked.has_errors);
  field(json, "runs", std::uint64_t{ranked.runs});
  field(json, "low", ranked.low);
  field(json, "high", ranked.high);
  field(json, "coverage", ranked.coverage);
  field(json, "lowest", ranked.lowest);
  field(json, "highest", ranked.highest);
  json.EndObject();
}

void writeUnmatched(JsonWriter& json, std::string_view name,
                    const std::vector<results::UnmatchedRun>& runs) {
  key(json, name);
  json.StartArray();
  for (const results::UnmatchedRun& run : runs) {
    json.StartObject();
    field(json, "scenario", run.scenario);
    field(json, "approach", run.approach);
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace

void writeSecondMembers(JsonWriter& json, const results::SecondRecord& second) {
  const results::LoadSecond& load = second.load;
  const results::SystemSample& system = second.system;
  // What the charts show, in their units; the counts beside them are the stored ones.
  const results::PresentedSecond shown = results::presentSecond(second);
  field(json, "second", std::uint64_t{load.index});
  field(json, "startSeconds", common::secondsOfMicros(load.start_micros));
  field(json, "durationSeconds", common::secondsOfMicros(load.duration_micros));
  field(json, "endSeconds", shown.seconds);
  field(json, "endEpochMillis", std::int64_t{load.end_epoch_millis});
  field(json, "activeVus", std::uint64_t{load.active_vus});
  field(json, "requestsOk", std::uint64_t{load.counters.requests_ok});
  field(json, "requestsFailed", std::uint64_t{shown.failed});
  key(json, "requestsPerSecond");
  json.StartObject();
  field(json, "ok", shown.ok_per_second);
  field(json, "failed", shown.failed_per_second);
  field(json, "intended", load.intended_requests_per_second);
  json.EndObject();
  key(json, "latencyMillis");
  json.StartObject();
  field(json, "p50", shown.latency_p50_millis);
  field(json, "p90", shown.latency_p90_millis);
  field(json, "p99", shown.latency_p99_millis);
  field(json, "max", shown.latency_max_millis);
  json.EndObject();
  key(json, "errors");
  json.StartObject();
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    field(json, measurement::errorClassName(error_class),
          std::uint64_t{load.counters.errors[error_class]});
  }
  json.EndObject();
  key(json, "host");
  json.StartObject();
  field(json, "cpuUserPercent", shown.host_cpu_user_percent);
  field(json, "cpuSystemPercent", shown.host_cpu_system_percent);
  field(json, "cpuIowaitPercent", shown.host_cpu_iowait_percent);
  field(json, "otherCpuPercent", shown.other_cpu_percent);
  field(json, "ramUsedPercent", shown.host_ram_used_percent);
  field(json, "otherRamPercent", shown.other_ram_percent);
  field(json, "ramTotalBytes", std::uint64_t{system.host.ram_total_bytes});
  field(json, "cpus", std::uint64_t{system.host.cpus});
  field(json, "tcpSockets", std::uint64_t{system.host.tcp_sockets_in_use});
  field(json, "loopbackBytes",
        std::uint64_t{system.host.loopback_rx_bytes + system.host.loopback_tx_bytes});
  field(json, "loopbackPackets",
        std::uint64_t{system.host.loopback_rx_packets + system.host.loopback_tx_packets});
  field(json, "loopbackRxBytes", std::uint64_t{system.host.loopback_rx_bytes});
  field(json, "loopbackTxBytes", std::uint64_t{system.host.loopback_tx_bytes});
  field(json, "tcpActiveOpens", std::uint64_t{system.host.tcp_active_opens});
  field(json, "tcpPassiveOpens", std::uint64_t{system.host.tcp_passive_opens});
  field(json, "intervalSeconds", system.host.interval_seconds);
  field(json, "tcpActiveOpensPerSecond", shown.tcp_active_opens_per_second);
  field(json, "tcpPassiveOpensPerSecond", shown.tcp_passive_opens_per_second);
  field(json, "loopbackRxMbps", shown.loopback_rx_mbps);
  field(json, "loopbackTxMbps", shown.loopback_tx_mbps);
  json.EndObject();
  key(json, "worker");
  json.StartObject();
  field(json, "cpuPercent", shown.worker_cpu_percent);
  field(json, "rssMiB", shown.worker_rss_mib);
  field(json, "heapMiB", shown.worker_heap_mib);
  field(json, "threads", std::uint64_t{system.worker.threads});
  field(json, "openFds", std::uint64_t{system.worker.open_fds});
  json.EndObject();
  field(json, "generatorCpuPercent", system.generator.cpu_percent);
  field(json, "generatorRssMiB", common::mebibytes(system.generator.rss_bytes));
  // A postgres row's private cluster, all its processes; null where nothing was sampled.
  key(json, "database");
  if (!system.database.present) {
    json.Null();
    return;
  }
  json.StartObject();
  field(json, "cpuPercent", shown.database_cpu_percent);
  field(json, "mib", shown.database_mib);
  field(json, "processes", std::uint64_t{system.database.threads});
  json.EndObject();
}

void writeSummaryRow(JsonWriter& json, const results::SummaryRow& row, bool diagnostics) {
  json.StartObject();
  field(json, "scenario", row.scenario);
  field(json, "approach", row.approach);
  field(json, "round", std::uint64_t{row.round});
  field(json, "roundPosition", std::uint64_t{row.round_position});
  field(json, "failed", row.failed);
  field(json, "failureReason", row.failure_reason);
  key(json, "metrics");
  json.StartObject();
  for (std::size_t index = 0; index < results::kMetricCount; ++index) {
    field(json, results::kMetricNames[index], row.metrics[index]);
  }
  json.EndObject();
  if (diagnostics) {
    const results::Diagnostics& d = row.diagnostics;
    key(json, "diagnostics");
    json.StartObject();
    field(json, "generatorCpuPercentAvg", d.generator_cpu_percent_avg);
    field(json, "generatorCpuPercentMax", d.generator_cpu_percent_max);
    field(json, "generatorCores", std::uint64_t{d.generator_cores});
    field(json, "otherCpuPercentAvg", d.other_cpu_percent_avg);
    field(json, "otherCpuPercentMax", d.other_cpu_percent_max);
    field(json, "otherRamPercentAvg", d.other_ram_percent_avg);
    field(json, "otherRamPercentMax", d.other_ram_percent_max);
    field(json, "databaseSampled", d.database_sampled);
    field(json, "databaseCpuPercentAvg", d.database_cpu_percent_avg);
    field(json, "databaseCpuPercentMax", d.database_cpu_percent_max);
    field(json, "databaseMibMax", d.database_mib_max);
    field(json, "memoryCapBytes", std::uint64_t{d.memory_cap_bytes});
    field(json, "memoryPeakBytes", std::uint64_t{d.memory_peak_bytes});
    field(json, "busyHost", results::busyHost(d));
    field(json, "achievedRequestsPerSecond", d.achieved_requests_per_second);
    field(json, "intendedRequestsPerSecond", d.intended_requests_per_second);
    field(json, "droppedArrivals", std::uint64_t{d.dropped_arrivals});
    field(json, "lateArrivals", std::uint64_t{d.late_arrivals});
    field(json, "interruptedRequests", std::uint64_t{d.interrupted_requests});
    field(json, "openModel", d.open_model);
    field(json, "uncorrectedLatencyMillisP50", d.uncorrected_latency_millis_p50);
    field(json, "uncorrectedLatencyMillisP99", d.uncorrected_latency_millis_p99);
    field(json, "uncorrectedLatencyMillisMax", d.uncorrected_latency_millis_max);
    field(json, "generatorSaturated", d.generator_saturated);
    field(json, "saturationReason", d.saturation_reason);
    field(json, "errorsByClass", d.errors_by_class);
    field(json, "workerStop", d.worker_stop);
    json.EndObject();
  }
  key(json, "capacity");
  if (row.capacity) {
    const results::CapacityResult& capacity = *row.capacity;
    json.StartObject();
    field(json, "goal", capacity.goal);
    field(json, "requestsPerSecond", capacity.requests_per_second);
    key(json, "failedAt");
    if (capacity.failed_at > 0.0) {
      json.Double(capacity.failed_at);
    } else {
      json.Null();
    }
    field(json, "verdict", capacity.verdict);
    field(json, "lowerBound", capacity.lowerBound());
    field(json, "trials", std::uint64_t{capacity.trials});
    field(json, "resolution", capacity.resolution);
    json.EndObject();
  } else {
    json.Null();
  }
  json.EndObject();
}

void writeCapacityTrial(JsonWriter& json, const results::CapacityTrialRecord& trial) {
  json.StartObject();
  field(json, "trial", std::uint64_t{trial.trial});
  field(json, "intendedRequestsPerSecond", trial.intended_requests_per_second);
  field(json, "achievedRequestsPerSecond", trial.achieved_requests_per_second);
  field(json, "goalLatencyMillis", trial.goal_latency_millis);
  field(json, "latencyMillisP50", trial.latency_p50_millis);
  field(json, "latencyMillisP99", trial.latency_p99_millis);
  field(json, "requestsOk", std::uint64_t{trial.requests_ok});
  field(json, "requestsError", std::uint64_t{trial.requests_error});
  field(json, "droppedArrivals", std::uint64_t{trial.dropped_arrivals});
  field(json, "generatorCpuPercent", trial.generator_cpu_percent);
  field(json, "outcome", trial.outcome);
  field(json, "confirmation", trial.confirmation);
  field(json, "reason", trial.reason);
  field(json, "firstSecond", std::uint64_t{trial.first_second});
  field(json, "lastSecond", std::uint64_t{trial.last_second});
  json.EndObject();
}

void writeScenarioRow(JsonWriter& json, const scenario::ScenarioRow& row) {
  json.StartObject();
  field(json, "scenario", row.name);
  field(json, "workload", row.workload);
  key(json, "serverProfiles");
  json.StartArray();
  for (const std::string& profile : row.server_profiles) {
    value(json, profile);
  }
  json.EndArray();
  field(json, "delayCallDepth", std::uint64_t{row.delay_call_depth});
  field(json, "delayInMillis", std::uint64_t{row.delay_millis});
  field(json, "connections", std::uint64_t{row.connections});
  key(json, "requestsPerSecond");
  if (row.requests_per_second) {
    json.Uint64(*row.requests_per_second);
  } else {
    json.Null();
  }
  field(json, "warmupSeconds", std::uint64_t{row.warmup_seconds});
  field(json, "testSeconds", std::uint64_t{row.test_seconds});
  key(json, "capacityGoal");
  if (row.capacity_goal) {
    value(json, row.capacity_goal->text());
  } else {
    json.Null();
  }
  field(json, "streamsPerConnection", std::uint64_t{row.streams_per_connection});
  key(json, "requestCount");
  if (row.request_count) {
    json.Uint64(*row.request_count);
  } else {
    json.Null();
  }
  field(json, "line", std::uint64_t{row.source_line});
  json.EndObject();
}

std::string winnersJson(const results::WinnersGrid& grid) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  const std::vector<std::string> colours = results::approachColours(grid.approaches);
  key(json, "approaches");
  json.StartArray();
  for (std::size_t index = 0; index < grid.approaches.size(); ++index) {
    json.StartObject();
    field(json, "name", grid.approaches[index]);
    field(json, "colour", colours[index]);
    field(json, "colourHex", results::colourHex(colours[index]));
    json.EndObject();
  }
  json.EndArray();
  key(json, "scenarios");
  json.StartArray();
  for (const std::string& scenario : grid.scenarios) {
    value(json, scenario);
  }
  json.EndArray();
  key(json, "metrics");
  json.StartArray();
  for (std::size_t metric = 0; metric < grid.metrics.size(); ++metric) {
    json.StartObject();
    field(json, "name", grid.metrics[metric]);
    field(json, "direction",
          grid.directions[metric] == results::Direction::kHigherIsBetter ? "higher-is-better"
                                                                         : "lower-is-better");
    key(json, "cells");
    json.StartArray();
    for (std::size_t scenario = 0; scenario < grid.scenarios.size(); ++scenario) {
      const results::WinnersCell& cell = grid.cell(metric, scenario);
      json.StartObject();
      field(json, "scenario", grid.scenarios[scenario]);
      field(json, "outcome", cellOutcomeName(cell.outcome));
      key(json, "winner");
      if (cell.winner.empty()) {
        json.Null();
      } else {
        value(json, cell.winner);
      }
      key(json, "top");
      if (const results::RankedResult* top = cell.top()) {
        writeRanked(json, *top);
      } else {
        json.Null();
      }
      key(json, "runnerUp");
      if (const results::RankedResult* runner_up = cell.runnerUp()) {
        writeRanked(json, *runner_up);
      } else {
        json.Null();
      }
      key(json, "ranked");
      json.StartArray();
      for (const results::RankedResult& ranked : cell.ranked) {
        writeRanked(json, ranked);
      }
      json.EndArray();
      field(json, "bothTopErrors", cell.both_top_errors);
      field(json, "lead", cell.lead);
      field(json, "alpha", cell.alpha);
      field(json, "colour", cell.colour);
      field(json, "colourHex", results::colourHex(cell.colour));
      field(json, "pValue", cell.p_value);
      field(json, "adjustedPValue", cell.adjusted_p_value);
      field(json, "leadLow", cell.lead_low);
      field(json, "leadHigh", cell.lead_high);
      field(json, "verdict", cell.verdict);
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
  key(json, "standings");
  json.StartArray();
  for (const results::ApproachStanding& standing : grid.standings) {
    json.StartObject();
    field(json, "approach", standing.approach);
    field(json, "rank", std::uint64_t{standing.rank});
    field(json, "wins", std::uint64_t{standing.wins});
    field(json, "percent", std::int64_t{standing.percent});
    field(json, "colour", standing.colour);
    field(json, "colourHex", results::colourHex(standing.colour));
    json.EndObject();
  }
  json.EndArray();
  field(json, "contests", std::uint64_t{grid.contests});
  field(json, "draws", std::uint64_t{grid.draws});
  field(json, "undecided", std::uint64_t{grid.undecided});
  field(json, "drawPercent", std::int64_t{grid.draw_percent});
  field(json, "rule", grid.rule);
  field(json, "confirmed", grid.confirmed);
  field(json, "ruleNote", grid.rule_note);
  field(json, "minRuns", std::uint64_t{grid.min_runs});
  field(json, "maxRuns", std::uint64_t{grid.max_runs});
  field(json, "expectedFalseWinners", grid.expected_false_winners);
  key(json, "incomplete");
  json.StartArray();
  for (const results::IncompleteResult& result : grid.incomplete) {
    json.StartObject();
    field(json, "scenario", result.scenario);
    field(json, "approach", result.approach);
    field(json, "failedRuns", std::uint64_t{result.failed_runs});
    field(json, "runs", std::uint64_t{result.runs});
    field(json, "outOfMemory", result.out_of_memory);
    field(json, "outcome", results::incompleteOutcomeText(result));
    field(json, "reason", result.reason);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return buffer.GetString();
}

std::string comparisonJson(const results::Comparison& comparison, std::int64_t base_run,
                           std::int64_t other_run) {
  rapidjson::StringBuffer buffer;
  JsonWriter json(buffer);
  json.StartObject();
  field(json, "base", base_run);
  field(json, "other", other_run);
  field(json, "thresholdPercent", comparison.threshold_percent);
  key(json, "groups");
  json.StartArray();
  for (const results::GroupComparison& group : comparison.groups) {
    json.StartObject();
    field(json, "name", results::groupName(group.group));
    field(json, "meanPercentChange", group.mean_percent_change);
    field(json, "stddevPercentChange", group.stddev_percent_change);
    field(json, "improved", std::uint64_t{group.improved});
    field(json, "regressed", std::uint64_t{group.regressed});
    field(json, "neutral", std::uint64_t{group.neutral});
    key(json, "changes");
    json.StartArray();
    for (const results::MetricChange& change : group.changes) {
      json.StartObject();
      field(json, "scenario", change.scenario);
      field(json, "approach", change.approach);
      field(json, "metric", change.metric);
      field(json, "before", change.before);
      field(json, "after", change.after);
      field(json, "percentChange", change.percent_change);
      field(json, "absoluteChange", change.absolute_change);
      field(json, "change", changeClassName(change.change));
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
  writeUnmatched(json, "onlyBase", comparison.only_before);
  writeUnmatched(json, "onlyOther", comparison.only_after);
  json.EndObject();
  return buffer.GetString();
}

}  // namespace benchd::control
