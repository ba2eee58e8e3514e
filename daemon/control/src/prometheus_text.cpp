#include "prometheus_text.hpp"

#include <benchd/measurement/error_class.hpp>

#include <cmath>
#include <cstdio>

namespace benchd::control {
namespace {

/// Label values escape '\', '"' and line feeds (exposition format 0.0.4).
std::string escapeLabel(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      escaped += "\\\\";
    } else if (c == '"') {
      escaped += "\\\"";
    } else if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

std::string number(double value) {
  if (std::isnan(value)) {
    return "NaN";
  }
  if (std::isinf(value)) {
    return value > 0 ? "+Inf" : "-Inf";
  }
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

class Exposition {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help) {
    text_ += "# HELP ";
    text_ += name;
    text_ += ' ';
    text_ += help;
    text_ += "\n# TYPE ";
    text_ += name;
    text_ += ' ';
    text_ += type;
    text_ += '\n';
  }
  void sample(std::string_view name, double value,
              std::initializer_list<std::pair<std::string_view, std::string_view>> labels = {}) {
    text_ += name;
    if (labels.size() > 0) {
      text_ += '{';
      bool first = true;
      for (const auto& [label, label_value] : labels) {
        text_ += first ? "" : ",";
        first = false;
        text_ += label;
        text_ += "=\"";
        text_ += escapeLabel(label_value);
        text_ += '"';
      }
      text_ += '}';
    }
    text_ += ' ';
    text_ += number(value);
    text_ += '\n';
  }
  void gauge(std::string_view name, std::string_view help, double value) {
    family(name, "gauge", help);
    sample(name, value);
  }
  [[nodiscard]] std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

void liveSecond(Exposition& out, const results::SecondRecord& second) {
  const results::LoadSecond& load = second.load;
  out.family("benchd_live_requests_per_second", "gauge",
             "Requests per second in the running run's latest second, by outcome.");
  out.sample("benchd_live_requests_per_second", load.okPerSecond(), {{"outcome", "ok"}});
  out.sample("benchd_live_requests_per_second", load.failedPerSecond(), {{"outcome", "failed"}});
  out.family("benchd_live_latency_milliseconds", "gauge",
             "Latency percentiles of the running run's latest second (quantile 1 is the max).");
  out.sample("benchd_live_latency_milliseconds", load.latency.p50, {{"quantile", "0.5"}});
  out.sample("benchd_live_latency_milliseconds", load.latency.p90, {{"quantile", "0.9"}});
  out.sample("benchd_live_latency_milliseconds", load.latency.p99, {{"quantile", "0.99"}});
  out.sample("benchd_live_latency_milliseconds", load.latency.max, {{"quantile", "1"}});
  out.family("benchd_live_errors", "gauge",
             "Failed requests in the running run's latest second, by error class.");
  for (const measurement::ErrorClass error_class : measurement::kAllErrorClasses) {
    out.sample("benchd_live_errors", static_cast<double>(load.counters.errors[error_class]),
               {{"class", measurement::errorClassName(error_class)}});
  }
  out.gauge("benchd_live_worker_cpu_percent",
            "CPU of the worker under test in the latest second, percent of one core.",
            second.system.worker.cpu_percent);
  out.gauge("benchd_live_worker_rss_bytes", "Resident memory of the worker under test.",
            static_cast<double>(second.system.worker.rss_bytes));
  out.gauge("benchd_live_worker_threads", "OS threads of the worker under test.",
            static_cast<double>(second.system.worker.threads));
  out.gauge("benchd_live_host_cpu_percent",
            "Host CPU use (user + system + iowait) in the latest second, percent.",
            second.system.host.cpu_user_percent + second.system.host.cpu_system_percent +
                second.system.host.cpu_iowait_percent);
}

}  // namespace

std::string prometheusText(const DaemonMetrics& metrics) {
  Exposition out;
  out.family("benchd_build_info", "gauge", "The benchd version serving these metrics.");
  out.sample("benchd_build_info", 1, {{"version", metrics.version}});
  out.gauge("benchd_queue_length", "Runs waiting behind the running one.",
            static_cast<double>(metrics.queue_length));
  out.family("benchd_runs", "gauge", "Runs in the store, by status.");
  for (const auto& [status, count] : metrics.runs_by_status) {
    out.sample("benchd_runs", static_cast<double>(count), {{"status", status}});
  }
  out.gauge("benchd_run_active", "1 while a run is running, else 0.", metrics.live ? 1 : 0);
  if (!metrics.live) {
    return out.take();
  }
  const runner::Progress& progress = metrics.live->progress;
  out.family("benchd_run_info", "gauge",
             "The running run's current row: scenario, approach and step (always 1).");
  out.sample("benchd_run_info", 1,
             {{"scenario", progress.scenario},
              {"approach", progress.approach},
              {"step", runner::runStepName(progress.step)}});
  out.gauge("benchd_run_row", "The running run's current row, from 1.",
            static_cast<double>(progress.row_number));
  out.gauge("benchd_run_rows", "Rows of the running run.", static_cast<double>(progress.row_count));
  out.gauge("benchd_run_phase_elapsed_seconds", "Time into the current step.",
            progress.phase_elapsed_seconds);
  out.gauge("benchd_run_phase_seconds", "Planned length of the current step.",
            progress.phase_seconds);
  out.gauge("benchd_run_remaining_seconds", "Estimated time until the running run ends.",
            progress.run_remaining_seconds);
  if (metrics.live->latest_second) {
    liveSecond(out, *metrics.live->latest_second);
  }
  return out.take();
}

}  // namespace benchd::control
