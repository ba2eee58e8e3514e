#include <benchd/common/epoch_time.hpp>
#include <benchd/runner/benchmark_run.hpp>
#include <benchd/runner/run_ledger.hpp>

#include <sstream>

namespace benchd::runner {

store::NewRun runRecordOf(const RunSettings& settings, std::int64_t started_epoch_millis) {
  store::NewRun record;
  record.scenario_file = settings.scenario_file.string();
  record.scenario_set = settings.scenario_set;
  record.approaches = settings.plan.approaches;
  record.options_text = settings.options_text;
  record.results_dir = settings.results_dir.string();
  record.started_epoch_millis = started_epoch_millis;
  record.repeats = settings.repeats;
  record.order_seed = settings.order_seed;
  record.winner_rule = settings.winner_rule;
  record.request = settings.stored_request;
  std::ostringstream thresholds;
  results::writeNoiseThresholds(thresholds, settings.noise_thresholds);
  record.noise_thresholds = thresholds.str();
  if (settings.resumed) {
    record.resumes = settings.resumed->resumes;
    record.resumed_epoch_millis = settings.resumed->resumed_epoch_millis;
  }
  return record;
}

std::vector<scenario::ScenarioRow> plannedRows(const RunPlan& plan) {
  std::vector<scenario::ScenarioRow> rows;
  rows.reserve(plan.rows.size());
  for (const RowPlan& row_plan : plan.rows) {
    rows.push_back(row_plan.row);
  }
  return rows;
}

std::vector<results::NotRunApproach> notRunApproaches(const RunPlan& plan) {
  std::vector<results::NotRunApproach> not_run;
  for (const RowPlan& row_plan : plan.rows) {
    for (const SkippedApproach& skip : row_plan.skipped) {
      not_run.push_back({row_plan.row.name, skip.approach, skip.reason});
    }
  }
  return not_run;
}

RunLedger RunLedger::record(store::ResultStore& store, const RunSettings& settings,
                            store::RunStatus initial) {
  const store::RunId id = store.createRun(runRecordOf(settings, common::epochMillisNow()), initial);
  RunLedger ledger(store, id);
  try {
    store.addScenarioRows(id, plannedRows(settings.plan));
  } catch (const std::exception& error) {
    ledger.finish(store::RunStatus::kFailed, error.what());
    throw;
  }
  return ledger;
}

RunLedger RunLedger::resume(store::ResultStore& store, store::RunId run, store::RunStatus initial) {
  store.deleteUnfinishedResults(run);
  if (!store.resumeRun(run, initial, common::epochMillisNow())) {
    throw std::runtime_error("run " + std::to_string(run) + " is no longer in " +
                             store.file().string());
  }
  return {store, run};
}

RunLedger::RunLedger(RunLedger&& other) noexcept
    : store_(std::exchange(other.store_, nullptr)), id_(other.id_), finished_(other.finished_) {}

RunLedger& RunLedger::operator=(RunLedger&& other) noexcept {
  if (this != &other) {
    abandon();
    store_ = std::exchange(other.store_, nullptr);
    id_ = other.id_;
    finished_ = other.finished_;
  }
  return *this;
}

RunLedger::~RunLedger() {
  abandon();
}

void RunLedger::abandon() noexcept {
  if (store_ == nullptr || finished_) {
    return;
  }
  try {
    finish(store::RunStatus::kInterrupted, "the run ended before its record was finished");
  } catch (const std::exception&) {
    // The store fails too (a full disk): the next writer of the store marks it interrupted.
  }
}

void RunLedger::placeResults(const std::filesystem::path& results_dir) {
  store_->setResultsDir(id_, results_dir.string());
}

void RunLedger::start(std::int64_t started_epoch_millis,
                      const std::vector<std::pair<std::string, std::string>>& system_specs) {
  store_->startRun(id_, started_epoch_millis, system_specs);
}

bool RunLedger::finish(store::RunStatus status, const std::string& reason) {
  if (finished_) {
    return false;
  }
  // Counted as ended before the write: a store that fails here fails again on a second try,
  // and the caller hears this failure.
  finished_ = true;
  store_->finishRun(id_, status, reason, common::epochMillisNow());
  return true;
}

}  // namespace benchd::runner
