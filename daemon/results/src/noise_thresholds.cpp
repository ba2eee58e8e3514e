#include <benchd/common/text_trim.hpp>
#include <benchd/results/noise_thresholds.hpp>
#include <benchd/results/statistics.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

namespace benchd::results {
namespace {

/// Per scenario, the values of one approach's runs of `metric` in table order (round k is the
/// k-th run, as the winners grid pairs them).
std::map<std::string, std::vector<double>> runsOf(const ResultsTable& runs,
                                                  const std::string& approach, std::size_t metric) {
  std::map<std::string, std::vector<double>> values;
  for (const ResultsRow& row : runs.rows()) {
    if (row.approach == approach) {
      values[row.scenario].push_back(runs.number(row, metric));
    }
  }
  return values;
}

NoiseThresholds everyMetricAt(double share, std::string source) {
  NoiseThresholds thresholds;
  thresholds.share.fill(share);
  thresholds.source = std::move(source);
  return thresholds;
}

}  // namespace

double NoiseThresholds::of(std::string_view metric) const {
  const std::optional<std::size_t> index = metricIndex(metric);
  return index ? share[*index] : kUnmeasuredNoiseShare;
}

const NoiseThresholds& shippedNoiseThresholds() {
  // Measured on benchd's development machine (2 cores, a VM) on 2026-12-06 by the A/A pair of
  // `bench/results/power.sh --repeat 10`: callbacks-asio against a byte-identical copy, 10
  // rounds of three no-delay get-time rows (1,000 and 5,000 req/s, and saturated at 50
  // connections; 2 s warm-up, 10 s test), then `benchd winners FOLDER --measure-noise
  // callbacks-asio,callbacks-asio#2`, in percent. requests_error showed no errors on either
  // side, so nothing measured it: it keeps the unmeasured 3 % (its cells are decided on errors,
  // which the threshold does not enter).
  static const NoiseThresholds shipped = [] {
    NoiseThresholds thresholds = everyMetricAt(
        kUnmeasuredNoiseShare,
        "the shipped thresholds: an A/A run of 10 rounds on benchd's 2-core development "
        "machine, 2026-12-06 (docs/metrics-and-ranking.md#noise-thresholds)");
    constexpr std::pair<std::string_view, double> kMeasuredPercent[] = {
        {"requests_ok", 0.5},
        {"requests_error", 3.0},
        {"requests_per_second_p50", 0.5},
        {"requests_per_second_p90", 0.5},
        {"requests_per_second_max", 0.5},
        {"latency_millis_min", 1.82},
        {"latency_millis_p50", 2.09},
        {"latency_millis_p90", 0.5},
        {"latency_millis_p99", 2.63},
        {"latency_millis_max", 10.87},
        {"cpu_use_percent_avg", 30.36},
        {"cpu_use_percent_max", 15.3},
        {"ram_use_percent_avg", 0.5},
        {"ram_use_percent_max", 0.5},
        {"heap_mib_avg", 0.5},
        {"heap_mib_max", 0.5},
        {"rss_mib_avg", 0.5},
        {"rss_mib_max", 0.5},
        {"context_switches_per_request", 0.5},
        {"cpu_millis_per_request", 2.69},
        {"os_threads_avg", 0.5},
        {"os_threads_max", 0.5},
        {"sockets_avg", 0.5},
        {"sockets_max", 0.5},
        {"network_kib_per_req_avg", 0.5},
        {"network_kib_per_req_max", 0.5},
        {"network_packets_per_req_avg", 0.5},
        {"network_packets_per_req_max", 0.5},
    };
    for (const auto& [metric, percent] : kMeasuredPercent) {
      thresholds.share[*metricIndex(metric)] = percent / 100.0;
    }
    return thresholds;
  }();
  return shipped;
}

NoiseThresholds measureNoiseThresholds(const ResultsTable& runs, const std::string& a,
                                       const std::string& b, const NoiseThresholds& fallback,
                                       std::string source) {
  NoiseThresholds measured = fallback;
  measured.source = std::move(source);
  for (std::size_t index = 0; index < kMetricCount; ++index) {
    const std::optional<std::size_t> column = runs.metricIndex(kMetricNames[index]);
    if (!column) {
      continue;
    }
    const auto of_a = runsOf(runs, a, *column);
    const auto of_b = runsOf(runs, b, *column);
    std::vector<double> row_leads;  // per scenario, the size of the median round difference
    for (const auto& [scenario, values_a] : of_a) {
      const auto found = of_b.find(scenario);
      if (found == of_b.end()) {
        continue;
      }
      const std::vector<double>& values_b = found->second;
      std::vector<double> differences;
      for (std::size_t round = 0; round < std::min(values_a.size(), values_b.size()); ++round) {
        const double x = values_a[round];
        const double y = values_b[round];
        if (std::isnan(x) || std::isnan(y) || (x == 0.0 && y == 0.0)) {
          continue;
        }
        differences.push_back((x - y) / ((std::abs(x) + std::abs(y)) / 2.0));
      }
      if (!differences.empty()) {
        row_leads.push_back(std::abs(stats::median(differences)));
      }
    }
    if (!row_leads.empty()) {
      measured.share[index] =
          std::clamp(stats::median(row_leads), kLowestNoiseShare, kHighestNoiseShare);
    }
  }
  return measured;
}

void writeNoiseThresholds(std::ostream& out, const NoiseThresholds& thresholds) {
  out << "# benchd noise thresholds: a lead must exceed its metric's share of the other "
         "approach's value\n";
  out << "# source: " << thresholds.source << "\n";
  out << "metric,threshold_percent\n";
  for (std::size_t index = 0; index < kMetricCount; ++index) {
    std::array<char, 32> text{};
    std::snprintf(text.data(), text.size(), "%.4g", 100.0 * thresholds.share[index]);
    out << kMetricNames[index] << "," << text.data() << "\n";
  }
}

NoiseThresholds readNoiseThresholds(std::istream& in, const std::string& name) {
  NoiseThresholds thresholds = shippedNoiseThresholds();
  thresholds.source = name;
  std::array<bool, kMetricCount> seen{};
  bool header_seen = false;
  std::string line;
  std::size_t number = 0;
  const auto fail = [&name, &number](const std::string& reason) {
    throw NoiseThresholdsError(name + ":" + std::to_string(number) + ": " + reason);
  };
  while (std::getline(in, line)) {
    ++number;
    const std::string text = std::string(common::trimBlanks(line));
    if (text.empty()) {
      continue;
    }
    if (text.starts_with("#")) {
      constexpr std::string_view kSource = "# source:";
      if (text.starts_with(kSource)) {
        thresholds.source =
            std::string(common::trimBlanks(std::string_view(text).substr(kSource.size())));
      }
      continue;
    }
    if (!header_seen) {
      if (text != "metric,threshold_percent") {
        fail("expected the header 'metric,threshold_percent', got '" + text + "'");
      }
      header_seen = true;
      continue;
    }
    const std::size_t comma = text.find(',');
    if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) {
      fail("expected 'metric,threshold_percent', got '" + text + "'");
    }
    const std::string metric =
        std::string(common::trimBlanks(std::string_view(text).substr(0, comma)));
    const std::string value =
        std::string(common::trimBlanks(std::string_view(text).substr(comma + 1)));
    const std::optional<std::size_t> index = metricIndex(metric);
    if (!index) {
      fail("'" + metric + "' is not a summary metric (docs/metrics-and-ranking.md)");
    }
    if (seen[*index]) {
      fail("'" + metric + "' is given twice");
    }
    seen[*index] = true;
    double percent = 0.0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), percent);
    if (error != std::errc() || end != value.data() + value.size() || !(percent >= 0.0) ||
        percent > 100.0) {
      std::string reason = metric;
      reason += ": expected a threshold in percent from 0 to 100, got '";
      reason += value;
      reason += "'";
      fail(reason);
    }
    thresholds.share[*index] = percent / 100.0;
  }
  if (!header_seen) {
    number = 0;
    fail("no 'metric,threshold_percent' header: not a noise thresholds file");
  }
  return thresholds;
}

NoiseThresholds readNoiseThresholdsFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) {
    throw NoiseThresholdsError(path.string() + ": cannot open the noise thresholds file");
  }
  return readNoiseThresholds(in, path.string());
}

}  // namespace benchd::results
