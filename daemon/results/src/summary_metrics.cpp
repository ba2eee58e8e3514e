#include <benchd/common/units.hpp>
#include <benchd/measurement/error_class.hpp>
#include <benchd/results/summary_metrics.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace benchd::results {
namespace {

constexpr double kKibibyte = 1024.0;

/// Average and maximum of a series; both 0 when empty.
struct AvgMax {
  double avg = 0.0;
  double max = 0.0;
};

template <typename Value>
AvgMax avgMax(std::span<const SecondRecord> seconds, Value value) {
  AvgMax result;
  if (seconds.empty()) {
    return result;
  }
  double sum = 0.0;
  result.max = value(seconds.front());
  for (const SecondRecord& second : seconds) {
    const double v = value(second);
    sum += v;
    result.max = std::max(result.max, v);
  }
  result.avg = sum / static_cast<double>(seconds.size());
  return result;
}

std::uint64_t completed(const SecondRecord& second) {
  return second.load.counters.requestsCompleted();
}

/// The seconds from the first to the last one in which a request completed (the original's
/// [first request second, last request second]); empty when nothing completed.
std::span<const SecondRecord> loadWindow(std::span<const SecondRecord> seconds) {
  const auto first = std::find_if(seconds.begin(), seconds.end(),
                                  [](const SecondRecord& s) { return completed(s) > 0; });
  if (first == seconds.end()) {
    return {};
  }
  const auto last = std::find_if(seconds.rbegin(), seconds.rend(),
                                 [](const SecondRecord& s) { return completed(s) > 0; });
  const auto begin = static_cast<std::size_t>(first - seconds.begin());
  const auto end = static_cast<std::size_t>(seconds.rend() - last);
  return seconds.subspan(begin, end - begin);
}

/// Per-request ratio of a per-second quantity over the seconds with requests.
template <typename Value>
AvgMax perRequest(std::span<const SecondRecord> seconds, Value value) {
  AvgMax result;
  double total = 0.0;
  double requests = 0.0;
  for (const SecondRecord& second : seconds) {
    const std::uint64_t count = completed(second);
    if (count == 0) {
      continue;
    }
    const double v = value(second);
    total += v;
    requests += static_cast<double>(count);
    result.max = std::max(result.max, v / static_cast<double>(count));
  }
  result.avg = requests > 0.0 ? total / requests : 0.0;
  return result;
}

/// The seconds for which the worker had printed a stats line (it prints its first one a
/// second after it started), so a missing line never counts as an empty heap.
std::vector<SecondRecord> withWorkerStats(std::span<const SecondRecord> seconds) {
  std::vector<SecondRecord> result;
  for (const SecondRecord& second : seconds) {
    if (second.system.worker_stats) {
      result.push_back(second);
    }
  }
  return result;
}

double heapMebibytes(const SecondRecord& second) {
  return common::mebibytes(second.system.worker_stats->heap_bytes);
}

std::string errorsByClass(const measurement::ErrorCounts& errors) {
  std::string text;
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    if (errors[error_class] == 0) {
      continue;
    }
    if (!text.empty()) {
      text += ' ';
    }
    text += std::string(measurement::errorClassName(error_class)) + "=" +
            std::to_string(errors[error_class]);
  }
  return text;
}

}  // namespace

SummaryRow computeSummary(const std::string& scenario, const std::string& approach,
                          const TestPhaseData& data) {
  SummaryRow row;
  row.scenario = scenario;
  row.approach = approach;
  const measurement::PhaseResult& test = data.test;
  const std::span<const SecondRecord> seconds = data.seconds;
  const auto set = [&row](std::string_view name, double value) { row.setMetric(name, value); };

  set("requests_ok", static_cast<double>(test.totals.requests_ok));
  set("requests_error", static_cast<double>(test.totals.errors.total()));

  std::vector<double> requested_per_second;
  requested_per_second.reserve(seconds.size());
  for (const SecondRecord& second : seconds) {
    requested_per_second.push_back(static_cast<double>(second.load.counters.requests_requested));
  }
  set("requests_per_second_p50", interpolatedPercentile(requested_per_second, 50));
  set("requests_per_second_p90", interpolatedPercentile(requested_per_second, 90));
  set("requests_per_second_max", interpolatedPercentile(requested_per_second, 100));

  const auto millis = [&test](double percentile) {
    return interpolatedPercentile(test.latency, percentile) / 1000.0;
  };
  set("latency_millis_min", millis(0));
  set("latency_millis_p50", millis(50));
  set("latency_millis_p90", millis(90));
  set("latency_millis_p99", millis(99));
  set("latency_millis_max", millis(100));

  const std::span<const SecondRecord> window = loadWindow(seconds);
  const AvgMax cpu = avgMax(window, [](const SecondRecord& s) {
    const sampling::HostSample& host = s.system.host;
    return host.cpu_user_percent + host.cpu_system_percent + host.cpu_iowait_percent;
  });
  set("cpu_use_percent_avg", cpu.avg);
  set("cpu_use_percent_max", cpu.max);
  const AvgMax ram =
      avgMax(window, [](const SecondRecord& s) { return s.system.host.ram_used_percent; });
  set("ram_use_percent_avg", ram.avg);
  set("ram_use_percent_max", ram.max);

  const std::vector<SecondRecord> reported = withWorkerStats(seconds);
  const AvgMax heap = avgMax(std::span<const SecondRecord>(reported), heapMebibytes);
  set("heap_mib_avg", heap.avg);
  set("heap_mib_max", heap.max);
  const AvgMax rss = avgMax(
      seconds, [](const SecondRecord& s) { return common::mebibytes(s.system.worker.rss_bytes); });
  set("rss_mib_avg", rss.avg);
  set("rss_mib_max", rss.max);

  double context_switches = 0.0;
  double cpu_micros = 0.0;
  for (const SecondRecord& second : seconds) {
    context_switches += static_cast<double>(second.system.worker.voluntary_context_switches +
                                            second.system.worker.involuntary_context_switches);
    cpu_micros += static_cast<double>(second.system.worker.cpu_micros);
  }
  const auto requests = static_cast<double>(test.totals.requestsCompleted());
  set("context_switches_per_request", requests > 0.0 ? context_switches / requests : 0.0);
  set("cpu_millis_per_request", requests > 0.0 ? cpu_micros / 1000.0 / requests : 0.0);

  const AvgMax threads = avgMax(
      seconds, [](const SecondRecord& s) { return static_cast<double>(s.system.worker.threads); });
  set("os_threads_avg", std::round(threads.avg));
  set("os_threads_max", threads.max);
  const AvgMax sockets = avgMax(window, [](const SecondRecord& s) {
    return static_cast<double>(s.system.host.tcp_sockets_in_use);
  });
  set("sockets_avg", std::round(sockets.avg));
  set("sockets_max", sockets.max);

  const AvgMax kib = perRequest(window, [](const SecondRecord& s) {
    return static_cast<double>(s.system.host.loopback_rx_bytes + s.system.host.loopback_tx_bytes) /
           kKibibyte;
  });
  set("network_kib_per_req_avg", kib.avg);
  set("network_kib_per_req_max", kib.max);
  const AvgMax packets = perRequest(window, [](const SecondRecord& s) {
    return static_cast<double>(s.system.host.loopback_rx_packets +
                               s.system.host.loopback_tx_packets);
  });
  set("network_packets_per_req_avg", packets.avg);
  set("network_packets_per_req_max", packets.max);

  Diagnostics& diagnostics = row.diagnostics;
  diagnostics.generator_cpu_percent_avg = test.generator_cpu_percent_avg;
  diagnostics.generator_cpu_percent_max = test.generator_cpu_percent_max;
  diagnostics.generator_cores = test.generator_cores;
  diagnostics.achieved_requests_per_second = test.achieved_requests_per_second;
  diagnostics.intended_requests_per_second = test.intended_requests_per_second;
  diagnostics.dropped_arrivals = test.totals.dropped_arrivals;
  diagnostics.late_arrivals = test.totals.late_arrivals;
  diagnostics.interrupted_requests = test.totals.interrupted_requests;
  diagnostics.open_model = data.open_model;
  if (data.open_model) {
    const auto uncorrected = [&test](double percentile) {
      return interpolatedPercentile(test.uncorrected_latency, percentile) / 1000.0;
    };
    diagnostics.uncorrected_latency_millis_p50 = uncorrected(50);
    diagnostics.uncorrected_latency_millis_p99 = uncorrected(99);
    diagnostics.uncorrected_latency_millis_max = uncorrected(100);
  }
  const AvgMax other_cpu =
      avgMax(window, [](const SecondRecord& s) { return s.system.otherCpuPercent(); });
  diagnostics.other_cpu_percent_avg = other_cpu.avg;
  diagnostics.other_cpu_percent_max = other_cpu.max;
  const AvgMax other_ram =
      avgMax(window, [](const SecondRecord& s) { return s.system.otherRamPercent(); });
  diagnostics.other_ram_percent_avg = other_ram.avg;
  diagnostics.other_ram_percent_max = other_ram.max;
  diagnostics.database_sampled =
      std::any_of(window.begin(), window.end(),
                  [](const SecondRecord& s) { return s.system.database.present; });
  if (diagnostics.database_sampled) {
    const AvgMax database_cpu =
        avgMax(window, [](const SecondRecord& s) { return s.system.database.cpu_percent; });
    diagnostics.database_cpu_percent_avg = database_cpu.avg;
    diagnostics.database_cpu_percent_max = database_cpu.max;
    diagnostics.database_mib_max = avgMax(window, [](const SecondRecord& s) {
                                     return common::mebibytes(s.system.database.rss_bytes);
                                   }).max;
  }
  diagnostics.generator_saturated = test.generator_saturated;
  diagnostics.saturation_reason = test.saturation_reason;
  diagnostics.errors_by_class = errorsByClass(test.totals.errors);
  return row;
}

}  // namespace benchd::results
