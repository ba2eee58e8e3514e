#include <benchd/common/units.hpp>
#include <benchd/results/load_report_text.hpp>

#include <iomanip>
#include <ostream>
#include <sstream>
#include <string>

namespace benchd::results {
namespace {

std::string millis(double value) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(value < 10.0 ? 3 : (value < 1000.0 ? 2 : 1)) << value
       << " ms";
  return text.str();
}

std::string mebibytes(double bytes) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(2) << bytes / common::kBytesPerMebibyte << " MiB";
  return text.str();
}

/// wrk --latency's "Latency Distribution" on one line: 50/75/90/99 %.
std::string distributionLine(const LoadLatency& latency) {
  std::string line = "50% ";
  line += millis(latency.p50);
  line += "  75% ";
  line += millis(latency.p75);
  line += "  90% ";
  line += millis(latency.p90);
  line += "  99% ";
  line += millis(latency.p99);
  return line;
}

std::string percentileLine(const LoadLatency& latency) {
  if (latency.count == 0) {
    return "no samples";
  }
  std::string line = "min ";
  line += millis(latency.min);
  line += "  p50 ";
  line += millis(latency.p50);
  line += "  p90 ";
  line += millis(latency.p90);
  line += "  p99 ";
  line += millis(latency.p99);
  line += "  max ";
  line += millis(latency.max);
  return line;
}

void writeHeader(std::ostream& out, const LoadSummary& summary) {
  const LoadRunDescription& run = summary.run;
  out << "benchd load: workload " << run.workload << " against " << run.target << " (approach "
      << run.approach << ")\n";
  out << "  " << run.connections << " connections, ";
  if (run.request_limit) {
    out << *run.request_limit << " requests in " << run.test_seconds << " s, ";
  } else {
    out << run.test_seconds << " s test, ";
  }
  out << run.warmup_seconds << " s warm-up, ";
  if (run.requests_per_second) {
    out << (summary.open_model ? "arrival rate " : "rate cap ") << *run.requests_per_second
        << " req/s, ";
  } else {
    out << "no rate, ";
  }
  out << summary.generator_threads << (summary.generator_threads == 1 ? " thread" : " threads")
      << ", depth " << run.delay_call_depth << ", delay " << run.delay_millis << " ms"
      << (run.stopped_early ? " (stopped early)" : "") << "\n\n";
}

void writeErrors(std::ostream& out, const LoadSummary& summary) {
  out << "  errors       ";
  if (summary.requests_errors == 0) {
    out << "none";
  } else {
    bool first = true;
    for (const ErrorClassCount& error_class : summary.errors_by_class) {
      if (error_class.count > 0) {
        out << (first ? "" : ", ") << error_class.name << " " << error_class.count;
        first = false;
      }
    }
  }
  out << "\n";
}

}  // namespace

void writeLoadReportText(std::ostream& out, const LoadSummary& summary) {
  const std::ios_base::fmtflags flags = out.flags();
  const std::streamsize precision = out.precision();
  out << std::fixed << std::setprecision(1);
  writeHeader(out, summary);

  out << "  requests     " << summary.requests_completed << " completed: " << summary.requests_ok
      << " ok, " << summary.requests_errors << " errors (" << summary.requests_sent << " sent, "
      << summary.requests_interrupted << " interrupted)\n";
  writeErrors(out, summary);
  if (summary.nothing_answered) {
    out << "  throughput   none: nothing answered, all " << summary.requests_completed
        << " requests failed without a response (see errors)\n";
  } else {
    out << "  throughput   " << summary.responses_per_second << " req/s";
    if (summary.intended_requests_per_second > 0.0) {
      out << " (intended " << summary.intended_requests_per_second << " req/s)";
    }
    out << " over " << std::setprecision(2) << summary.elapsed_seconds << " s\n"
        << std::setprecision(1);
  }
  if (summary.failures_per_second > 0.0) {
    out << "  failures     " << summary.failures_per_second
        << " req/s ended without a response (refused, timed out, reset)\n";
  }
  out << "  latency      " << percentileLine(summary.latency)
      << (summary.open_model ? "   (from the intended send time)" : "") << "\n";
  if (summary.latency.count > 0) {
    out << "  distribution " << distributionLine(summary.latency) << "\n";
  }
  if (summary.open_model) {
    out << "  uncorrected  " << percentileLine(summary.uncorrected_latency)
        << "   (from the actual send)\n";
    out << "  arrivals     " << summary.dropped_arrivals << " dropped, " << summary.late_arrivals
        << " sent late\n";
  }
  out << "  transfer     " << mebibytes(static_cast<double>(summary.bytes_sent)) << " sent, "
      << mebibytes(static_cast<double>(summary.bytes_received)) << " received ("
      << mebibytes(summary.bytes_received_per_second) << "/s in)\n";
  out << "  connections  " << summary.connects << " connects, " << summary.peak_active_vus
      << " peak active\n";
  out << std::setprecision(0) << "  generator    CPU " << summary.generator_cpu_percent_avg
      << " % avg, " << summary.generator_cpu_percent_max << " % max of " << summary.generator_cores
      << (summary.generator_cores == 1 ? " core" : " cores") << std::setprecision(2) << ", "
      << summary.generator_cpu_micros_per_request << " us/request\n";
  out << "  saturation   "
      << (summary.nothing_answered      ? std::string("not judged: nothing answered")
          : summary.generator_saturated ? "SATURATED: " + summary.saturation_reason
                                        : std::string("no"))
      << "\n";
  for (const std::string& warning : summary.warnings) {
    out << "  warning      " << warning << "\n";
  }
  out.flags(flags);
  out.precision(precision);
}

}  // namespace benchd::results
