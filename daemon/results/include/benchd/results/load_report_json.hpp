#pragma once

#include <benchd/results/load_summary.hpp>

#include <iosfwd>

namespace benchd::results {

/// The summary of a load phase as one JSON object on one line, newline-ended (`benchd load
/// --json`). Field names are a published interface; add, never rename. Latencies in ms,
/// durations in seconds, "rate" null when none was given, "request_limit" the N of
/// `--requests N` (null for a timed run), "errors" has every error class:
///
///   {"workload", "url", "approach", "open_model", "connections", "duration_seconds",
///    "warmup_seconds", "rate", "request_limit", "stopped_early", "elapsed_seconds",
///    "requests": {"sent", "completed", "ok", "errors", "requested", "interrupted",
///                 "dropped_arrivals", "late_arrivals"},
///    "errors": {"connection_refused": n, ...},
///    "requests_per_second", "intended_requests_per_second",
///    "latency_ms" and "uncorrected_latency_ms":
///        {"count", "min", "p50", "p90", "p99", "p999", "max", "mean"},
///    "transfer": {"bytes_sent", "bytes_received"}, "connects", "peak_active_vus",
///    "generator": {"threads", "cores", "cpu_percent_avg", "cpu_percent_max", "cpu_seconds",
///                  "cpu_micros_per_request", "saturated", "saturation_reason"},
///    "warnings": [text, ...],
///    "snapshots": [{"index", "start_seconds", "duration_seconds", "ok", "errors",
///                   "requested", "dropped_arrivals", "requests_per_second",
///                   "intended_requests_per_second", "p50_ms", "p99_ms", "active_vus",
///                   "generator_cpu_percent"}, ...]}
///
/// Renders `summary` as it is: computes nothing.
void writeLoadReportJson(std::ostream& out, const LoadSummary& summary);

}  // namespace benchd::results
