#pragma once

#include <benchd/results/load_summary.hpp>

#include <iosfwd>

namespace benchd::results {

/// The summary of a load phase for people, like wrk's and k6's: a header saying what ran, then
/// one labelled line per topic (requests, errors by class, throughput, latency, for the open
/// model also uncorrected latency and arrivals, transfer, connections, generator CPU,
/// saturation, one line per warning). Latencies in ms (3 decimals below 10 ms, 2 below 1 s,
/// else 1), transfer in MiB. Renders `summary` as it is: computes nothing.
void writeLoadReportText(std::ostream& out, const LoadSummary& summary);

}  // namespace benchd::results
