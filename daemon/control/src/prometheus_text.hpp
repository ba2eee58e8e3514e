#pragma once

#include <benchd/control/run_queue.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace benchd::control {

/// What GET /metrics reports: the daemon, its queue, and the running run's latest second.
struct DaemonMetrics {
  std::string version;
  std::size_t queue_length = 0;
  std::vector<std::pair<std::string, std::size_t>> runs_by_status;  ///< stored runs per status
  std::optional<LiveRun> live;                                      ///< nothing while no run runs
};

/// The Prometheus text exposition format (version 0.0.4) of `metrics`: every metric with HELP
/// and TYPE, label values escaped. No run id is a label (each run would be a new series);
/// the running row is described by an info metric with scenario, approach and step labels.
/// Live values are gauges of the latest second; they are absent while no run has a second.
std::string prometheusText(const DaemonMetrics& metrics);

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace benchd::control
