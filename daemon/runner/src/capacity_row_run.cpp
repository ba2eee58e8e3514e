#include "capacity_row_run.hpp"

#include <benchd/results/summary_metrics.hpp>
#include <benchd/runner/capacity_trial.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace benchd::runner {
namespace {

std::string outcomeName(TrialOutcome outcome) {
  switch (outcome) {
    case TrialOutcome::kPass:
      return "pass";
    case TrialOutcome::kFail:
      return "fail";
    case TrialOutcome::kGeneratorSaturated:
      return "generator-saturated";
  }
  return "fail";
}

/// A trial's rate as the row asks for it: whole requests per second, at least 1.
std::uint32_t wholeRate(double rate) {
  return static_cast<std::uint32_t>(std::max(1.0, std::round(rate)));
}

double millisOf(std::uint64_t micros) {
  return static_cast<double>(micros) / 1000.0;
}

}  // namespace

CapacityRowRun::CapacityRowRun(RowRun& steps, const RowRunContext& context, const RowPlan& row_plan,
                               const Approach& approach, store::ResultId result_id,
                               std::optional<double> warm_start)
    : steps_(steps),
      context_(context),
      row_plan_(row_plan),
      approach_(approach),
      result_id_(result_id),
      warm_start_(warm_start) {}

CapacityRowRun::JudgedTrial CapacityRowRun::judge(std::uint32_t rate, const RowAttempt& attempted,
                                                  std::uint32_t first_second) const {
  const measurement::PhaseResult& test = *attempted.phases->test;
  const scenario::CapacityGoal& goal = *row_plan_.row.capacity_goal;
  results::CapacityTrialRecord record;
  record.intended_requests_per_second = static_cast<double>(rate);
  record.achieved_requests_per_second = test.achieved_requests_per_second;
  record.goal_latency_millis = millisOf(test.latency.valueAtPercentile(
      servedPercentileFor(goal, test.latency.count(), test.totals.dropped_arrivals)));
  record.latency_p50_millis = millisOf(test.latency.valueAtPercentile(50.0));
  record.latency_p99_millis = millisOf(test.latency.valueAtPercentile(99.0));
  record.requests_ok = test.totals.requests_ok;
  record.requests_error = test.totals.errors.total();
  record.dropped_arrivals = test.totals.dropped_arrivals;
  record.generator_cpu_percent = test.generator_cpu_percent_avg;
  TrialMeasurement measured;
  measured.intended_requests_per_second = test.intended_requests_per_second;
  measured.achieved_requests_per_second = test.achieved_requests_per_second;
  measured.goal_latency_millis = record.goal_latency_millis;
  measured.requests_ok = record.requests_ok;
  measured.requests_error = record.requests_error;
  measured.dropped_arrivals = record.dropped_arrivals;
  measured.generator_cpu_share =
      test.generator_cpu_percent_avg / (100.0 * std::max<std::uint32_t>(1, test.generator_cores));
  TrialVerdict verdict = judgeTrial(goal, measured);
  record.outcome = outcomeName(verdict.outcome);
  record.reason = std::move(verdict.reason);
  record.first_second = first_second;
  record.last_second =
      first_second +
      static_cast<std::uint32_t>(std::max<std::size_t>(1, attempted.test_seconds.size())) - 1;
  return {std::move(record), verdict.outcome};
}

std::optional<results::SummaryRow> CapacityRowRun::run() {
  context_.observer.onStep(context_.progress(RunStep::kStarting, 0.0, 0.0));
  if (const std::optional<RowFailure> refused = steps_.refusal()) {
    return steps_.failedRow(*refused);
  }
  CapacitySearch search(
      capacitySettingsFor(row_plan_.row, context_.settings.capacity_resolution, warm_start_));
  SecondNumbering numbering;
  // Every passing trial by the rate the search asked for: the summary is the one at the rate
  // found (a failed confirmation can take the highest pass back). Until one passes, the latest
  // trial, so a search that found nothing still shows what the server did.
  std::map<double, RowAttempt> passes;
  std::optional<RowAttempt> latest_failure;
  std::uint32_t trial_number = 0;
  while (const std::optional<double> next = search.nextRate()) {
    const std::uint32_t rate = wholeRate(*next);
    scenario::ScenarioRow trial_row = row_plan_.row;
    trial_row.requests_per_second = rate;
    const std::uint32_t first_second = numbering.test;
    RowAttempt attempted = steps_.attempt(
        trial_row, numbering,
        CertainFailure(*row_plan_.row.capacity_goal, rate, row_plan_.row.test_seconds));
    ++trial_number;
    if (attempted.stopped) {
      return std::nullopt;
    }
    if (attempted.failure) {
      attempted.failure->reason = "capacity trial " + std::to_string(trial_number) + " at " +
                                  std::to_string(rate) + " req/s: " + attempted.failure->reason;
      return steps_.failedRow(*attempted.failure);
    }
    JudgedTrial judged = judge(rate, attempted, first_second);
    judged.record.trial = trial_number;
    if (attempted.ended_early && !judged.record.reason.empty()) {
      judged.record.reason += " (ended after " + std::to_string(attempted.test_seconds.size()) +
                              " s: its failure was certain)";
    }
    search.record(judged.outcome);
    judged.record.confirmation = search.trials().back().confirmation;
    context_.store.addCapacityTrial(result_id_, judged.record);
    context_.observer.onTrial(context_.progress(RunStep::kTest, 0.0, 0.0),
                              *row_plan_.row.capacity_goal, judged.record);
    all_test_seconds_.insert(all_test_seconds_.end(), attempted.test_seconds.begin(),
                             attempted.test_seconds.end());
    if (judged.outcome == TrialOutcome::kPass) {
      passes.insert_or_assign(*next, std::move(attempted));
    } else {
      latest_failure = std::move(attempted);
    }
  }
  const auto found = passes.find(search.capacity());
  const RowAttempt* shown = found != passes.end() ? &found->second
                            : latest_failure      ? &*latest_failure
                                                  : nullptr;
  if (shown == nullptr) {
    return steps_.failedRow({"the capacity search ran no trial"});
  }
  results::SummaryRow summary;
  try {
    const results::TestPhaseData data{*shown->phases->test, shown->test_seconds,
                                      row_plan_.workload.isOpenModel()};
    summary = results::computeSummary(row_plan_.row.name, approach_.name, data);
  } catch (const std::exception& error) {
    return steps_.failedRow({error.what()});
  }
  summary.diagnostics.worker_stop = shown->worker_stop;
  summary.diagnostics.memory_cap_bytes = shown->memory_cap_bytes;
  summary.diagnostics.memory_peak_bytes = shown->memory_peak_bytes;
  results::CapacityResult capacity;
  capacity.goal = row_plan_.row.capacity_goal->text();
  capacity.requests_per_second = search.capacity() > 0.0 ? wholeRate(search.capacity()) : 0.0;
  capacity.failed_at = search.failedAt() ? wholeRate(*search.failedAt()) : 0.0;
  capacity.verdict = verdictName(search.verdict());
  capacity.trials = trial_number;
  capacity.resolution = search.settings().resolution;
  summary.capacity = std::move(capacity);
  return summary;
}

}  // namespace benchd::runner
