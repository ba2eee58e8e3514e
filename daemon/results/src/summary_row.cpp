#include <benchd/results/summary_row.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace benchd::results {

std::optional<std::size_t> metricIndex(std::string_view name) {
  const auto found = std::find(kMetricNames.begin(), kMetricNames.end(), name);
  if (found == kMetricNames.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(found - kMetricNames.begin());
}

namespace {

std::size_t requireIndex(std::string_view name) {
  if (const auto index = metricIndex(name)) {
    return *index;
  }
  throw std::invalid_argument("unknown metric '" + std::string(name) + "'");
}

}  // namespace

double SummaryRow::metric(std::string_view name) const {
  return metrics[requireIndex(name)];
}

void SummaryRow::setMetric(std::string_view name, double value) {
  metrics[requireIndex(name)] = value;
}

bool keptWhenFailed(std::string_view metric) {
  return metric == "requests_ok" || metric == "requests_error";
}

void forgetFailedMetrics(SummaryRow& row) {
  for (std::size_t index = 0; index < kMetricCount; ++index) {
    if (!keptWhenFailed(kMetricNames[index])) {
      row.metrics[index] = std::numeric_limits<double>::quiet_NaN();
    }
  }
}

SummaryRow failedRow(std::string scenario, std::string approach, std::string reason,
                     std::uint64_t errors, std::uint64_t ok) {
  SummaryRow row;
  row.scenario = std::move(scenario);
  row.approach = std::move(approach);
  row.failed = true;
  row.failure_reason = std::move(reason);
  forgetFailedMetrics(row);
  row.setMetric("requests_error", static_cast<double>(std::max<std::uint64_t>(1, errors)));
  row.setMetric("requests_ok", static_cast<double>(ok));
  return row;
}

bool endedOutOfMemory(const SummaryRow& row) {
  return row.failed && row.failure_reason.find(kOutOfMemoryOutcome) != std::string::npos;
}

}  // namespace benchd::results
