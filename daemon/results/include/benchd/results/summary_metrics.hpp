#pragma once

#include <benchd/measurement/phase_result.hpp>
#include <benchd/results/series.hpp>
#include <benchd/results/summary_row.hpp>

#include <span>
#include <string>

namespace benchd::results {

/// What a finished test phase left behind: the generator's phase totals (its merged latency
/// histogram holds every requested sample) and the per-second records.
struct TestPhaseData {
  const measurement::PhaseResult& test;
  std::span<const SecondRecord> seconds;  ///< test phase only, in order
  bool open_model = false;
};

/// The summary row of a test phase, per the original's definitions with C++ counterparts for its
/// JVM metrics (docs/metrics-and-ranking.md#the-metrics):
///  * requests_ok / requests_error: 2xx responses / everything else (connect failures too);
///  * requests_per_second_*: p50, p90 (interpolated) and max of the per-second counts of
///    requested samples (2xx, or failures >= 10 ms), one bin per generator interval including
///    the partial last one;
///  * latency_millis_*: interpolated percentiles of the requested samples (interpolatedPercentile);
///  * host metrics (cpu, ram, sockets, network) over the LOAD WINDOW: the seconds from the first
///    to the last one in which a request completed; cpu = user + system + iowait;
///  * worker metrics (heap, rss, threads) over every test-phase second (heap: every second with a
///    stats line of the worker); thread and socket averages rounded to integers;
///  * context_switches_per_request and cpu_millis_per_request: the worker's totals over the test
///    phase divided by the completed requests (0 without requests);
///  * network_*_per_req: loopback rx + tx over seconds with at least one completed request,
///    divided by their completed requests (avg: sum over sum; max: the highest per-second ratio).
/// Pure function.
SummaryRow computeSummary(const std::string& scenario, const std::string& approach,
                          const TestPhaseData& data);

}  // namespace benchd::results
