#include "run_progress.hpp"

#include <benchd/results/metric_format.hpp>
#include <benchd/runner/run_plan.hpp>

#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace benchd::cli {
namespace {

std::string where(const runner::Progress& progress) {
  std::ostringstream text;
  text << "[" << progress.row_number << "/" << progress.row_count << " " << progress.scenario
       << " x " << progress.approach << " " << progress.approach_number << "/"
       << progress.approach_count;
  if (progress.repeats > 1) {
    text << " round " << progress.round << "/" << progress.repeats;
  }
  text << "]";
  return text.str();
}

std::string eta(const runner::Progress& progress) {
  return "ETA " + runner::formatDuration(std::chrono::seconds(
                      static_cast<std::int64_t>(std::lround(progress.run_remaining_seconds))));
}

}  // namespace

RunProgress::RunProgress(std::ostream& out, bool terminal, bool quiet)
    : out_(out), terminal_(terminal), quiet_(quiet) {}

void RunProgress::show(const std::string& line, bool transient) {
  if (quiet_) {
    return;
  }
  if (terminal_ && transient) {
    out_ << "\r\033[K" << line << std::flush;
    line_open_ = true;
    return;
  }
  finish();
  out_ << line << std::endl;
}

void RunProgress::finish() {
  if (line_open_) {
    out_ << "\r\033[K" << std::flush;
    line_open_ = false;
  }
}

void RunProgress::onStep(const runner::Progress& progress) {
  std::string line = where(progress) + " " + std::string(runner::runStepName(progress.step));
  if (progress.phase_seconds > 0.0) {
    line += " " + std::to_string(std::lround(progress.phase_seconds)) + " s";
  }
  show(line + "  " + eta(progress), terminal_);
}

void RunProgress::onSecond(const runner::Progress& progress, const results::SecondRecord& second) {
  const long elapsed = std::lround(progress.phase_elapsed_seconds);
  if (!terminal_ && elapsed % kLogEverySeconds != 0) {
    return;
  }
  std::ostringstream line;
  line << where(progress) << " " << runner::runStepName(progress.step) << " " << elapsed << "/"
       << std::lround(progress.phase_seconds) << " s  " << std::fixed << std::setprecision(0)
       << second.load.achieved_requests_per_second << " req/s  p99 " << std::setprecision(1)
       << second.load.latency.p99 << " ms  errors " << second.load.counters.errors.total() << "  "
       << eta(progress);
  show(line.str(), true);
}

void RunProgress::onNotice(const std::string& line) {
  if (!line.empty()) {
    show(line, false);
  }
}

void RunProgress::onTrial(const runner::Progress& progress, const scenario::CapacityGoal& goal,
                          const results::CapacityTrialRecord& trial) {
  std::ostringstream line;
  line << where(progress) << " trial " << trial.trial << (trial.confirmation ? " (confirming)" : "")
       << ": " << std::fixed << std::setprecision(0) << trial.intended_requests_per_second
       << " req/s asked, " << trial.achieved_requests_per_second << " achieved, "
       << goal.text().substr(0, goal.text().find('<')) << " " << std::setprecision(2)
       << trial.goal_latency_millis << " ms: " << trial.outcome;
  if (!trial.reason.empty()) {
    line << " (" << trial.reason << ")";
  }
  show(line.str(), false);
}

void RunProgress::onResult(const runner::Progress& progress, const results::SummaryRow& row) {
  std::string line = where(progress) + " ";
  if (row.failed) {
    line += "FAILED: " + row.failure_reason;
  } else if (row.capacity) {
    const results::CapacityResult& capacity = *row.capacity;
    line += "capacity " + results::formatMetricValue(capacity.requests_per_second) +
            " req/s under " + capacity.goal + " (" + capacity.verdict + ", " +
            std::to_string(capacity.trials) + " trials" +
            (capacity.failed_at > 0.0
                 ? ", failed at " + results::formatMetricValue(capacity.failed_at) + " req/s"
                 : std::string()) +
            (capacity.lowerBound() ? "; a lower bound" : "") + ")";
  } else {
    const auto value = [&row](std::string_view name) {
      return results::formatMetricValue(row.metric(name));
    };
    line += "done: " + value("requests_ok") + " ok, " + value("requests_error") +
            " errors, req/s p50 " + value("requests_per_second_p50") + ", latency p50 " +
            value("latency_millis_p50") + " / p99 " + value("latency_millis_p99") + " ms, CPU " +
            value("cpu_use_percent_avg") + " %";
    if (row.diagnostics.generator_saturated) {
      line += " (generator saturated)";
    }
  }
  show(line, false);
}

}  // namespace benchd::cli
