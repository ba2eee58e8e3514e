#include "markdown_text.hpp"

#include <benchd/results/metric_format.hpp>
#include <benchd/results/results_markdown.hpp>
#include <benchd/results/statistics.hpp>
#include <benchd/results/winners_markdown.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>
#include <map>
#include <ostream>
#include <string_view>
#include <vector>

namespace benchd::results {
namespace {

std::string utcTime(std::int64_t epoch_millis) {
  const auto seconds = static_cast<std::time_t>(epoch_millis / 1000);
  std::tm parts{};
  ::gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S", &parts);
  return text;
}

std::string clockDuration(std::int64_t millis) {
  const std::int64_t total = std::max<std::int64_t>(0, millis / 1000);
  char text[32];
  std::snprintf(text, sizeof(text), "%02lld:%02lld:%02lld", static_cast<long long>(total / 3600),
                static_cast<long long>(total / 60 % 60), static_cast<long long>(total % 60));
  return text;
}

/// GitHub's heading anchors: lower case, blanks to '-', other punctuation but '-' and '_' gone.
std::string anchorOf(const std::string& heading) {
  std::string anchor;
  for (const char c : heading) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_') {
      anchor += c;
    } else if (c >= 'A' && c <= 'Z') {
      anchor += static_cast<char>(c - 'A' + 'a');
    } else if (c == ' ') {
      anchor += '-';
    }
  }
  return anchor;
}

std::string profilesOf(const scenario::ScenarioRow& row) {
  std::string text;
  for (const std::string& profile : row.server_profiles) {
    text += (text.empty() ? "" : "|") + profile;
  }
  return markdownCell(text);
}

void writeKeyNumbers(std::ostream& out, const SummaryRow& row) {
  const auto value = [&row](std::string_view name) { return formatMetricValue(row.metric(name)); };
  out << "| requests ok / error | req/s p50 / p90 / max | latency ms p50 / p90 / p99 / max | "
         "CPU % avg | RSS MiB max | OS threads max | sockets max |\n"
         "|---|---|---|---|---|---|---|\n";
  out << "| " << value("requests_ok") << " / " << value("requests_error") << " | "
      << value("requests_per_second_p50") << " / " << value("requests_per_second_p90") << " / "
      << value("requests_per_second_max") << " | " << value("latency_millis_p50") << " / "
      << value("latency_millis_p90") << " / " << value("latency_millis_p99") << " / "
      << value("latency_millis_max") << " | " << value("cpu_use_percent_avg") << " | "
      << value("rss_mib_max") << " | " << value("os_threads_max") << " | " << value("sockets_max")
      << " |\n\n";
  const Diagnostics& d = row.diagnostics;
  out << "Load generator: " << formatMetricValue(d.generator_cpu_percent_avg) << " % CPU avg ("
      << formatMetricValue(d.generator_cpu_percent_max) << " % max) of " << d.generator_cores
      << (d.generator_cores == 1 ? " core" : " cores") << "; achieved "
      << formatMetricValue(d.achieved_requests_per_second) << " req/s";
  if (d.intended_requests_per_second > 0.0) {
    out << " of " << formatMetricValue(d.intended_requests_per_second) << " intended";
  }
  if (d.open_model) {
    out << "; " << d.dropped_arrivals << " dropped and " << d.late_arrivals
        << " late arrivals; uncorrected latency p50 / p99 / max "
        << formatMetricValue(d.uncorrected_latency_millis_p50) << " / "
        << formatMetricValue(d.uncorrected_latency_millis_p99) << " / "
        << formatMetricValue(d.uncorrected_latency_millis_max) << " ms";
  }
  out << ".";
  if (d.database_sampled) {
    out << " PostgreSQL (all its processes): " << formatMetricValue(d.database_cpu_percent_avg)
        << " % CPU avg (" << formatMetricValue(d.database_cpu_percent_max)
        << " % max) of one core, " << formatMetricValue(d.database_mib_max) << " MiB max.";
  }
  if (!d.errors_by_class.empty()) {
    out << " Errors: " << d.errors_by_class << ".";
  }
  if (d.generator_saturated) {
    out << " **Generator saturated**: " << d.saturation_reason;
  }
  if (!d.worker_stop.empty()) {
    out << " Worker stop: " << d.worker_stop << ".";
  }
  out << "\n\n";
}

/// `path` for a Markdown link: every byte but letters, digits, '/', '-', '_', '.' and '~'
/// percent-encoded, so a variant's name ("callbacks-asio#2", "x[k=v]") does not end the link or
/// start a fragment.
std::string linkPath(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '/' || c == '-' || c == '_' || c == '.' || c == '~';
    if (plain) {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4U];
      encoded += kHex[byte & 0x0fU];
    }
  }
  return encoded;
}

/// One run's capacity search in a sentence.
std::string capacityText(const CapacityResult& capacity) {
  std::string text = formatMetricValue(capacity.requests_per_second) + " req/s under " +
                     capacity.goal + " (" + capacity.verdict;
  if (capacity.failed_at > 0.0) {
    text += ", failed at " + formatMetricValue(capacity.failed_at) + " req/s";
  }
  text += ", " + std::to_string(capacity.trials) + " trials";
  if (capacity.lowerBound()) {
    text += "; a lower bound, not the server's limit";
  }
  return text + ")";
}

/// A capacity row's answer first: per approach the rate its searches found (the median of the
/// runs, their lowest and highest) and how they ended.
void writeCapacityTable(std::ostream& out, const scenario::ScenarioRow& row,
                        const std::vector<SummaryRow>& results, bool has_chart) {
  out << "Capacity search: per approach, the highest open-model arrival rate whose fixed-rate "
         "trial kept "
      << row.capacity_goal->text()
      << " (dropped arrivals counted above the bound) with no errors and at least 95 % of the "
         "rate achieved (trials "
         "from "
      << row.requests_per_second.value_or(0)
      << " req/s, each a fresh worker, warm-up and test). The metrics further down are those "
         "of that trial, measured at that rate, so they are shown, not ranked.\n\n"
         "| approach | capacity req/s (median) | lowest – highest | searches | trials |\n"
         "|---|---:|---:|---|---:|\n";
  std::vector<std::string> approaches;
  for (const SummaryRow& result : results) {
    if (result.scenario == row.name &&
        std::find(approaches.begin(), approaches.end(), result.approach) == approaches.end()) {
      approaches.push_back(result.approach);
    }
  }
  for (const std::string& approach : approaches) {
    std::vector<double> rates;
    std::map<std::string, std::size_t> verdicts;
    std::uint32_t trials = 0;
    std::size_t failed = 0;
    for (const SummaryRow& result : results) {
      if (result.scenario != row.name || result.approach != approach) {
        continue;
      }
      if (!result.capacity) {
        ++failed;
        continue;
      }
      rates.push_back(result.capacity->requests_per_second);
      ++verdicts[result.capacity->verdict];
      trials += result.capacity->trials;
    }
    std::string searches;
    for (const auto& [verdict, count] : verdicts) {
      searches += (searches.empty() ? "" : ", ") + std::to_string(count) + " " + verdict;
    }
    if (failed > 0) {
      searches += (searches.empty() ? "" : ", ") + std::to_string(failed) + " failed";
    }
    out << "| " << markdownCell(approach) << " | ";
    if (rates.empty()) {
      out << "– | – | ";
    } else {
      const auto [lowest, highest] = std::minmax_element(rates.begin(), rates.end());
      out << formatMetricValue(stats::median(rates)) << " | " << formatMetricValue(*lowest) << " – "
          << formatMetricValue(*highest) << " | ";
    }
    out << searches << " | " << trials << " |\n";
  }
  out << "\n";
  if (has_chart) {
    out << "![" << markdownCell(row.name) << ": capacity trials](./"
        << linkPath(row.name + "/capacity.png")
        << ")\n\nEach trial of the first round: the rate asked against the goal's latency "
           "percentile, filled where it passed, hollow where it failed.\n\n";
  }
}

/// Over the finished runs of one (row, approach): per key metric the median, its confidence
/// interval from order statistics (stats::medianInterval, with its real coverage) and the
/// spread, the lowest and highest run and their distance in percent of the median.
void writeRunSpread(std::ostream& out, const std::vector<const SummaryRow*>& runs) {
  std::vector<const SummaryRow*> finished;
  std::copy_if(runs.begin(), runs.end(), std::back_inserter(finished),
               [](const SummaryRow* run) { return !run->failed; });
  if (finished.size() < 2) {
    return;
  }
  constexpr std::string_view kMetrics[] = {"requests_ok",         "requests_per_second_p50",
                                           "latency_millis_p50",  "latency_millis_p99",
                                           "cpu_use_percent_avg", "rss_mib_max",
                                           "os_threads_max"};
  double coverage = 0.0;
  out << "Over " << finished.size()
      << " finished runs: the median, its confidence interval (order statistics) and the "
         "spread of the runs.\n\n"
         "| metric | median | interval | lowest – highest | spread |\n"
         "|---|---:|---:|---:|---:|\n";
  for (const std::string_view metric : kMetrics) {
    std::vector<double> values;
    values.reserve(finished.size());
    for (const SummaryRow* run : finished) {
      values.push_back(run->metric(metric));
    }
    const stats::MedianInterval interval = stats::medianInterval(values, 0.95);
    coverage = interval.coverage;
    const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
    const double spread =
        interval.median != 0.0 ? 100.0 * (*highest - *lowest) / std::abs(interval.median) : 0.0;
    out << "| " << metric << " | " << formatMetricValue(interval.median) << " | "
        << formatMetricValue(interval.low) << " – " << formatMetricValue(interval.high) << " | "
        << formatMetricValue(*lowest) << " – " << formatMetricValue(*highest) << " | "
        << formatMetricValue(spread) << " % |\n";
  }
  out << "\nThe interval covers the median with probability " << formatMetricValue(100.0 * coverage)
      << " %" << (coverage < 0.95 ? " (fewer than 6 runs cannot reach 95 %)" : "") << ".\n\n";
}

/// "1st", "2nd", "3rd", "4th", ... "11th", "12th", "13th", "21st".
std::string ordinal(std::uint32_t number) {
  const std::uint32_t tens = number % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    suffix = number % 10 == 1 ? "st" : number % 10 == 2 ? "nd" : number % 10 == 3 ? "rd" : "th";
  }
  return std::to_string(number) + suffix;
}

/// What the grid ranks but should not be read without: failed results (ranked last, as in the
/// original), results whose load generator saturated (their numbers may be the generator's
/// limit, not the server's) and results measured on a busy host (busyHost). Nothing when there
/// are none.
void writeCaveats(std::ostream& out, const std::vector<SummaryRow>& results) {
  bool any = false;
  for (const SummaryRow& row : results) {
    if (!row.failed && !row.diagnostics.generator_saturated && !busyHost(row.diagnostics)) {
      continue;
    }
    if (!any) {
      out << "### Caveats\n\n";
      any = true;
    }
    out << "- " << row.scenario << " × " << row.approach;
    if (row.round > 1) {
      out << " (run " << row.round << ")";
    }
    out << ": ";
    if (row.failed) {
      out << "**failed** (its metrics missing but the request counts; ranked last): "
          << row.failure_reason << "\n";
    } else if (busyHost(row.diagnostics)) {
      out << "**measured on a busy host**: other processes used "
          << formatMetricValue(row.diagnostics.other_cpu_percent_avg)
          << " % of its CPUs on average ("
          << formatMetricValue(row.diagnostics.other_cpu_percent_max) << " % at most) and "
          << formatMetricValue(row.diagnostics.other_ram_percent_avg)
          << " % of its RAM, so the scenario's host-wide cells (host CPU and RAM, sockets, "
             "network) are not ranked\n";
    } else {
      out << "**load generator saturated**, so its numbers may show the generator's limit "
             "rather than the server's: "
          << row.diagnostics.saturation_reason << "\n";
    }
  }
  if (any) {
    out << "\n";
  }
}

}  // namespace

void writeResultsMarkdown(std::ostream& out, const ResultsDocument& document) {
  out << "# " << document.title << "\n\n";
  if (document.stopped) {
    out << "**This run was stopped before it finished; the results below are the rows that "
           "completed.**\n\n";
  }
  if (document.resumes > 0) {
    out << "**This run was resumed " << document.resumes
        << (document.resumes == 1 ? " time" : " times") << " (the latest at "
        << utcTime(document.resumed_epoch_millis)
        << " UTC): it had ended before it finished, and the runs it lacked were run then, into "
           "the same run. Every result measured before was kept; a run cut off mid-way was "
           "measured again. The duration below includes the time it did not run.**\n\n";
  }
  out << "## Test Time\n\n| | |\n|---|---|\n";
  out << "| Start (UTC) | " << utcTime(document.started_epoch_millis) << " |\n";
  out << "| End (UTC) | " << utcTime(document.finished_epoch_millis) << " |\n";
  out << "| Duration | "
      << clockDuration(document.finished_epoch_millis - document.started_epoch_millis) << " |\n\n";

  out << "## System Specs\n\n| | |\n|---|---|\n";
  for (const auto& [label, value] : document.specs) {
    out << "| " << markdownCell(label) << " | " << markdownCell(value) << " |\n";
  }
  out << "\n## Scenarios\n\nScenario file: `" << document.scenario_file << "`\n\n";
  if (!document.settings_note.empty()) {
    out << document.settings_note << "\n\n";
  }
  out << "| Scenario | Workload | Server Profiles | Delay Call Depth | Delay (ms) | Connections | "
         "Requests per Second | Warmup Duration (s) | Test Duration (s) |\n"
         "|---|---|---|---|---|---|---|---|---|\n";
  for (const scenario::ScenarioRow& row : document.rows) {
    out << "| [" << row.name << "](#" << anchorOf(row.name) << ") | " << row.workload << " | "
        << profilesOf(row) << " | " << row.delay_call_depth << " | " << row.delay_millis << " | "
        << row.connections;
    if (row.streams_per_connection > 1) {
      out << " × " << row.streams_per_connection << " streams";
    }
    out << " | " << (row.requests_per_second ? std::to_string(*row.requests_per_second) : "")
        << " | " << row.warmup_seconds << " | " << row.test_seconds;
    if (row.request_count) {
      out << " at most, " << *row.request_count << " requests";
    }
    out << " |\n";
  }
  std::string searches;
  for (const scenario::ScenarioRow& row : document.rows) {
    if (row.capacity_goal) {
      searches += (searches.empty() ? "" : ", ") + ("[" + row.name + "](#" + anchorOf(row.name) +
                                                    ") under " + row.capacity_goal->text());
    }
  }
  if (!searches.empty()) {
    out << "\nCapacity searches (the capacityGoal column; their Requests per Second is the first "
           "trial's rate): "
        << searches << ".\n";
  }

  out << "\n## Result Overview\n\n";
  if (document.images.count("results.png") != 0) {
    out << "![Overall](./results.png)\n\n";
  }
  if (document.results.empty()) {
    out << "No results.\n\n";
  } else {
    writeWinnersMarkdown(out, document.winners);
    out << "\n";
    writeCaveats(out, document.results);
  }

  out << "## Result Details\n\n";
  for (const scenario::ScenarioRow& row : document.rows) {
    out << "### " << row.name << "\n\n";
    if (row.capacity_goal) {
      writeCapacityTable(out, row, document.results,
                         document.images.count(row.name + "/capacity.png") != 0);
    }
    // One heading and chart per approach (its first run's chart), then every run of it.
    std::vector<std::string> approaches;
    for (const SummaryRow& result : document.results) {
      if (result.scenario == row.name &&
          std::find(approaches.begin(), approaches.end(), result.approach) == approaches.end()) {
        approaches.push_back(result.approach);
      }
    }
    for (const std::string& approach : approaches) {
      std::vector<const SummaryRow*> runs;
      for (const SummaryRow& result : document.results) {
        if (result.scenario == row.name && result.approach == approach) {
          runs.push_back(&result);
        }
      }
      const std::string image = row.name + "/" + approach + ".png";
      const bool has_image = document.images.count(image) != 0;
      out << "#### " << approach << (has_image ? "" : " (No image available)") << "\n\n";
      if (has_image) {
        out << "![" << markdownCell(approach) << "](./" << linkPath(image) << ")\n\n";
      }
      writeRunSpread(out, runs);
      for (const SummaryRow* result : runs) {
        if (runs.size() > 1) {
          out << "Run " << result->round << " of " << runs.size()
              << (result->round_position > 0
                      ? " (" + ordinal(result->round_position) + " in its round)"
                      : std::string())
              << (has_image && result->round == 1 ? ", the chart above" : "") << ":\n\n";
        }
        if (result->failed) {
          out << "**Failed**: " << result->failure_reason << "\n\n";
          continue;
        }
        if (result->capacity) {
          out << "Capacity: " << capacityText(*result->capacity)
              << (result->capacity->requests_per_second > 0.0
                      ? "; the numbers of its highest passing trial:\n\n"
                      : "; no trial passed, the numbers of its last trial:\n\n");
        }
        writeKeyNumbers(out, *result);
      }
    }
    for (const NotRunApproach& skipped : document.not_run) {
      if (skipped.scenario == row.name) {
        out << "#### " << skipped.approach << " (not run)\n\n" << skipped.reason << ".\n\n";
      }
    }
  }
}

}  // namespace benchd::results
