#include "schema.hpp"
#include "series_codec.hpp"
#include "writer_claim.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_error.hpp>
#include <benchd/sqlite/sqlite_statement.hpp>
#include <benchd/sqlite/sqlite_transaction.hpp>
#include <benchd/store/result_store.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>
#include <system_error>

namespace benchd::store {
namespace {

using sqlite::SqliteConnection;
using sqlite::SqliteStatement;
using sqlite::StatementExecution;

constexpr std::array<std::pair<RunStatus, std::string_view>, 6> kStatusNames = {{
    {RunStatus::kRunning, "running"},
    {RunStatus::kCompleted, "completed"},
    {RunStatus::kStopped, "stopped"},
    {RunStatus::kFailed, "failed"},
    {RunStatus::kQueued, "queued"},
    {RunStatus::kInterrupted, "interrupted"},
}};

std::string joined(const std::vector<std::string>& parts, char separator) {
  std::string text;
  for (const std::string& part : parts) {
    if (!text.empty()) {
      text += separator;
    }
    text += part;
  }
  return text;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) {
    return parts;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end - start));
    if (end == std::string_view::npos) {
      return parts;
    }
    start = end + 1;
  }
}

std::int64_t asInt(std::uint64_t value) {
  return static_cast<std::int64_t>(value);
}

}  // namespace

results::NoiseThresholds noiseThresholdsOf(const NewRun& run) {
  if (run.noise_thresholds.empty()) {
    return results::shippedNoiseThresholds();
  }
  std::istringstream text(run.noise_thresholds);
  try {
    return results::readNoiseThresholds(text, "the run's noise thresholds");
  } catch (const results::NoiseThresholdsError& error) {
    results::NoiseThresholds shipped = results::shippedNoiseThresholds();
    shipped.source += " (the run's own could not be read: " + std::string(error.what()) + ")";
    return shipped;
  }
}

std::string_view runStatusName(RunStatus status) {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) {
      return name;
    }
  }
  return "unknown";
}

std::optional<RunStatus> runStatusFromName(std::string_view name) {
  for (const auto& [value, status_name] : kStatusNames) {
    if (status_name == name) {
      return value;
    }
  }
  return std::nullopt;
}

struct ResultStore::Impl {
  explicit Impl(const std::string& path) : connection(path) {}

  mutable std::mutex mutex;
  mutable SqliteConnection connection;
  std::optional<WriterClaim> writer_claim;  ///< claimWriter()
};

ResultStore::ResultStore(const std::filesystem::path& file) : file_(file) {
  try {
    if (file.has_parent_path()) {
      std::filesystem::create_directories(file.parent_path());
    }
    impl_ = std::make_unique<Impl>(file.string());
    SqliteConnection& connection = impl_->connection;
    const int version = schemaVersionOf(connection);
    if (version > kSchemaVersion) {
      throw StoreError(file.string() + ": results store of schema version " +
                       std::to_string(version) + ", newer than this benchd understands (" +
                       std::to_string(kSchemaVersion) + "); use a newer benchd or another file");
    }
    connection.execute("PRAGMA journal_mode = WAL");
    connection.execute("PRAGMA synchronous = NORMAL");
    connection.execute("PRAGMA foreign_keys = ON");
    migrateSchema(connection, kSchemaVersion);
  } catch (const sqlite::SqliteError& error) {
    throw StoreError(file.string() + ": cannot open the results store: " + error.what());
  } catch (const std::filesystem::filesystem_error& error) {
    throw StoreError(file.string() + ": cannot create its folder: " + error.what());
  }
}

ResultStore::~ResultStore() = default;

int ResultStore::schemaVersion() const {
  const std::scoped_lock lock(impl_->mutex);
  return schemaVersionOf(impl_->connection);
}

RunId ResultStore::createRun(const NewRun& run, RunStatus initial) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  sqlite::SqliteTransaction transaction(connection);
  // Ids only grow, also past deleted runs (see the schema's run_id_high_water).
  connection.execute(
      "UPDATE run_id_high_water SET id = max(id, (SELECT coalesce(max(id), 0) FROM run)) + 1");
  SqliteStatement next = connection.prepare("SELECT id FROM run_id_high_water");
  if (!next.step()) {
    throw StoreError(file_.string() + ": the run id counter is missing");
  }
  const RunId id = next.columnInt64(0);
  SqliteStatement insert = connection.prepare(
      "INSERT INTO run (id, scenario_file, scenario_set, approaches, options, results_dir, "
      "started_epoch_millis, status, repeats, order_seed, winner_rule, request, "
      "noise_thresholds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, id);
  insert.bind(2, std::string_view(run.scenario_file));
  insert.bind(3, std::string_view(run.scenario_set));
  insert.bind(4, std::string_view(joined(run.approaches, ',')));
  insert.bind(5, std::string_view(run.options_text));
  insert.bind(6, std::string_view(run.results_dir));
  insert.bind(7, run.started_epoch_millis);
  insert.bind(8, runStatusName(initial));
  insert.bind(9, std::int64_t{run.repeats});
  // SQLite integers are signed; the seed's bits are stored as they are.
  insert.bind(10, static_cast<std::int64_t>(run.order_seed));
  insert.bind(11, results::winnerRuleName(run.winner_rule));
  insert.bind(12, std::string_view(run.request));
  insert.bind(13, std::string_view(run.noise_thresholds));
  insert.run();
  SqliteStatement spec = connection.prepare(
      "INSERT INTO run_spec (run_id, position, label, value) VALUES (?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const auto& [label, value] : run.system_specs) {
    const StatementExecution execution(spec);
    spec.bind(1, id);
    spec.bind(2, position++);
    spec.bind(3, std::string_view(label));
    spec.bind(4, std::string_view(value));
    spec.run();
  }
  transaction.commit();
  return id;
}

void ResultStore::startRun(RunId run, std::int64_t started_epoch_millis,
                           const std::vector<std::pair<std::string, std::string>>& system_specs) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  sqlite::SqliteTransaction transaction(connection);
  SqliteStatement update =
      connection.prepare("UPDATE run SET status = ?, started_epoch_millis = ? WHERE id = ?");
  update.bind(1, runStatusName(RunStatus::kRunning));
  update.bind(2, started_epoch_millis);
  update.bind(3, run);
  update.run();
  SqliteStatement forget = connection.prepare("DELETE FROM run_spec WHERE run_id = ?");
  forget.bind(1, run);
  forget.run();
  SqliteStatement spec = connection.prepare(
      "INSERT INTO run_spec (run_id, position, label, value) VALUES (?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const auto& [label, value] : system_specs) {
    const StatementExecution execution(spec);
    spec.bind(1, run);
    spec.bind(2, position++);
    spec.bind(3, std::string_view(label));
    spec.bind(4, std::string_view(value));
    spec.run();
  }
  transaction.commit();
}

bool ResultStore::resumeRun(RunId run, RunStatus status, std::int64_t resumed_epoch_millis) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement update = impl_->connection.prepare(
      "UPDATE run SET status = ?, error = '', finished_epoch_millis = 0, resumes = resumes + 1, "
      "resumed_epoch_millis = ? WHERE id = ?");
  update.bind(1, runStatusName(status));
  update.bind(2, resumed_epoch_millis);
  update.bind(3, run);
  update.run();
  return impl_->connection.changes() > 0;
}

std::size_t ResultStore::deleteUnfinishedResults(RunId run) {
  const std::scoped_lock lock(impl_->mutex);
  // Their seconds, metrics and diagnostics go with them (ON DELETE CASCADE).
  SqliteStatement remove =
      impl_->connection.prepare("DELETE FROM result WHERE run_id = ? AND finished = 0");
  remove.bind(1, run);
  remove.run();
  return static_cast<std::size_t>(impl_->connection.changes());
}

std::uint64_t ResultStore::lastEventSequence(RunId run) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      "SELECT coalesce(max(sequence), 0) FROM run_event WHERE run_id = ?");
  select.bind(1, run);
  return select.step() ? static_cast<std::uint64_t>(select.columnInt64(0)) : 0;
}

std::size_t ResultStore::claimWriter(std::int64_t now_epoch_millis) {
  if (impl_->writer_claim) {
    return 0;
  }
  try {
    impl_->writer_claim.emplace(file_);
    const std::size_t marked =
        impl_->writer_claim->sole() ? markInterruptedRuns(now_epoch_millis) : 0;
    impl_->writer_claim->share();
    return marked;
  } catch (const std::system_error& error) {
    impl_->writer_claim.reset();
    throw StoreError(error.what());
  }
}

std::size_t ResultStore::markInterruptedRuns(std::int64_t now_epoch_millis) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  SqliteStatement update = connection.prepare(
      "UPDATE run SET status = ?, error = ?, finished_epoch_millis = ? "
      "WHERE status IN (?, ?)");
  update.bind(1, runStatusName(RunStatus::kInterrupted));
  update.bind(2, std::string_view("the process running it ended before it finished"));
  update.bind(3, now_epoch_millis);
  update.bind(4, runStatusName(RunStatus::kRunning));
  update.bind(5, runStatusName(RunStatus::kQueued));
  update.run();
  return static_cast<std::size_t>(connection.changes());
}

void ResultStore::addScenarioRows(RunId run, std::span<const scenario::ScenarioRow> rows) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  sqlite::SqliteTransaction transaction(connection);
  SqliteStatement insert = connection.prepare(
      "INSERT INTO scenario_row (run_id, row_index, name, workload, server_profiles, "
      "delay_call_depth, delay_millis, connections, requests_per_second, warmup_seconds, "
      "test_seconds, source_line, capacity_goal) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  std::int64_t index = 0;
  for (const scenario::ScenarioRow& row : rows) {
    const StatementExecution execution(insert);
    insert.bind(1, run);
    insert.bind(2, index++);
    insert.bind(3, std::string_view(row.name));
    insert.bind(4, std::string_view(row.workload));
    insert.bind(5, std::string_view(joined(row.server_profiles, '|')));
    insert.bind(6, std::int64_t{row.delay_call_depth});
    insert.bind(7, std::int64_t{row.delay_millis});
    insert.bind(8, std::int64_t{row.connections});
    if (row.requests_per_second) {
      insert.bind(9, std::int64_t{*row.requests_per_second});
    } else {
      insert.bindNull(9);
    }
    insert.bind(10, std::int64_t{row.warmup_seconds});
    insert.bind(11, std::int64_t{row.test_seconds});
    insert.bind(12, asInt(row.source_line));
    const std::string goal = row.capacity_goal ? row.capacity_goal->text() : std::string();
    insert.bind(13, std::string_view(goal));
    insert.run();
  }
  transaction.commit();
}

ResultId ResultStore::beginResult(RunId run, std::size_t row_index, const std::string& scenario,
                                  const std::string& approach, std::uint32_t round,
                                  std::uint32_t round_position) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  SqliteStatement insert = connection.prepare(
      "INSERT INTO result (run_id, row_index, scenario, approach, repeat_number, round_position) "
      "VALUES (?, ?, ?, ?, ?, ?)");
  insert.bind(1, run);
  insert.bind(2, asInt(row_index));
  insert.bind(3, std::string_view(scenario));
  insert.bind(4, std::string_view(approach));
  insert.bind(5, std::int64_t{round});
  insert.bind(6, std::int64_t{round_position});
  insert.run();
  return connection.lastInsertRowId();
}

void ResultStore::addSecond(ResultId result, const results::SecondRecord& second) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  sqlite::SqliteTransaction transaction(connection);
  insertLoadSecond(connection, result, second.load);
  insertSystemSecond(connection, result, second.load.phase, second.load.index, second.system);
  transaction.commit();
}

void ResultStore::finishResult(ResultId result, const results::SummaryRow& summary) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  sqlite::SqliteTransaction transaction(connection);
  SqliteStatement update = connection.prepare(
      "UPDATE result SET finished = 1, failed = ?, failure_reason = ? WHERE id = ?");
  update.bind(1, std::int64_t{summary.failed ? 1 : 0});
  update.bind(2, std::string_view(summary.failure_reason));
  update.bind(3, result);
  update.run();
  SqliteStatement metric = connection.prepare(
      "INSERT OR REPLACE INTO result_metric (result_id, name, value) VALUES (?, ?, ?)");
  for (std::size_t index = 0; index < results::kMetricCount; ++index) {
    if (std::isnan(summary.metrics[index])) {
      continue;  // missing (a failed run's): no row, read back as NaN
    }
    const StatementExecution execution(metric);
    metric.bind(1, result);
    metric.bind(2, results::kMetricNames[index]);
    metric.bind(3, summary.metrics[index]);
    metric.run();
  }
  SqliteStatement diagnostic = connection.prepare(
      "INSERT OR REPLACE INTO result_diagnostic (result_id, name, value) VALUES (?, ?, ?)");
  std::vector<std::pair<std::string, std::string>> pairs = diagnosticsToPairs(summary.diagnostics);
  for (auto& pair : capacityToPairs(summary.capacity)) {
    pairs.push_back(std::move(pair));
  }
  for (const auto& [name, value] : pairs) {
    const StatementExecution execution(diagnostic);
    diagnostic.bind(1, result);
    diagnostic.bind(2, std::string_view(name));
    diagnostic.bind(3, std::string_view(value));
    diagnostic.run();
  }
  transaction.commit();
}

void ResultStore::addCapacityTrial(ResultId result, const results::CapacityTrialRecord& trial) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement insert = impl_->connection.prepare(
      "INSERT OR REPLACE INTO capacity_trial (result_id, trial, intended_requests_per_second, "
      "achieved_requests_per_second, goal_latency_millis, latency_p50_millis, "
      "latency_p99_millis, requests_ok, requests_error, dropped_arrivals, "
      "generator_cpu_percent, outcome, confirmation, reason, first_second, last_second) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, result);
  insert.bind(2, std::int64_t{trial.trial});
  insert.bind(3, trial.intended_requests_per_second);
  insert.bind(4, trial.achieved_requests_per_second);
  insert.bind(5, trial.goal_latency_millis);
  insert.bind(6, trial.latency_p50_millis);
  insert.bind(7, trial.latency_p99_millis);
  insert.bind(8, asInt(trial.requests_ok));
  insert.bind(9, asInt(trial.requests_error));
  insert.bind(10, asInt(trial.dropped_arrivals));
  insert.bind(11, trial.generator_cpu_percent);
  insert.bind(12, std::string_view(trial.outcome));
  insert.bind(13, std::int64_t{trial.confirmation ? 1 : 0});
  insert.bind(14, std::string_view(trial.reason));
  insert.bind(15, std::int64_t{trial.first_second});
  insert.bind(16, std::int64_t{trial.last_second});
  insert.run();
}

std::vector<results::CapacityTrialRecord> ResultStore::capacityTrials(ResultId result) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      "SELECT trial, intended_requests_per_second, achieved_requests_per_second, "
      "goal_latency_millis, latency_p50_millis, latency_p99_millis, requests_ok, "
      "requests_error, dropped_arrivals, generator_cpu_percent, outcome, confirmation, reason, "
      "first_second, last_second FROM capacity_trial WHERE result_id = ? ORDER BY trial");
  select.bind(1, result);
  std::vector<results::CapacityTrialRecord> trials;
  while (select.step()) {
    results::CapacityTrialRecord trial;
    trial.trial = static_cast<std::uint32_t>(select.columnInt64(0));
    trial.intended_requests_per_second = select.columnDouble(1);
    trial.achieved_requests_per_second = select.columnDouble(2);
    trial.goal_latency_millis = select.columnDouble(3);
    trial.latency_p50_millis = select.columnDouble(4);
    trial.latency_p99_millis = select.columnDouble(5);
    trial.requests_ok = static_cast<std::uint64_t>(select.columnInt64(6));
    trial.requests_error = static_cast<std::uint64_t>(select.columnInt64(7));
    trial.dropped_arrivals = static_cast<std::uint64_t>(select.columnInt64(8));
    trial.generator_cpu_percent = select.columnDouble(9);
    trial.outcome = select.columnText(10);
    trial.confirmation = select.columnInt64(11) != 0;
    trial.reason = select.columnText(12);
    trial.first_second = static_cast<std::uint32_t>(select.columnInt64(13));
    trial.last_second = static_cast<std::uint32_t>(select.columnInt64(14));
    trials.push_back(std::move(trial));
  }
  return trials;
}

void ResultStore::finishRun(RunId run, RunStatus status, const std::string& error,
                            std::int64_t finished_epoch_millis) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement update = impl_->connection.prepare(
      "UPDATE run SET status = ?, error = ?, finished_epoch_millis = ? WHERE id = ?");
  update.bind(1, runStatusName(status));
  update.bind(2, std::string_view(error));
  update.bind(3, finished_epoch_millis);
  update.bind(4, run);
  update.run();
}

void ResultStore::setResultsDir(RunId run, const std::string& results_dir) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement update = impl_->connection.prepare("UPDATE run SET results_dir = ? WHERE id = ?");
  update.bind(1, std::string_view(results_dir));
  update.bind(2, run);
  update.run();
}

bool ResultStore::deleteRun(RunId run) {
  const std::scoped_lock lock(impl_->mutex);
  // Everything else goes with it: every table refers to run (or result) ON DELETE CASCADE.
  SqliteStatement remove = impl_->connection.prepare("DELETE FROM run WHERE id = ?");
  remove.bind(1, run);
  remove.run();
  return impl_->connection.changes() > 0;
}

void ResultStore::addEvent(RunId run, const StoredEvent& event) {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement insert = impl_->connection.prepare(
      "INSERT OR IGNORE INTO run_event (run_id, sequence, type, data) VALUES (?, ?, ?, ?)");
  insert.bind(1, run);
  insert.bind(2, static_cast<std::int64_t>(event.sequence));
  insert.bind(3, std::string_view(event.type));
  insert.bind(4, std::string_view(event.data));
  insert.run();
}

std::vector<StoredEvent> ResultStore::events(RunId run, std::uint64_t after_sequence,
                                             std::size_t limit) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      "SELECT sequence, type, data FROM run_event WHERE run_id = ? AND sequence > ? "
      "ORDER BY sequence LIMIT ?");
  select.bind(3, static_cast<std::int64_t>(
                     std::min<std::size_t>(limit, std::numeric_limits<std::int64_t>::max())));
  select.bind(1, run);
  select.bind(2, static_cast<std::int64_t>(std::min<std::uint64_t>(
                     after_sequence, std::numeric_limits<std::int64_t>::max())));
  std::vector<StoredEvent> events;
  while (select.step()) {
    StoredEvent event;
    event.sequence = static_cast<std::uint64_t>(select.columnInt64(0));
    event.type = select.columnText(1);
    event.data = select.columnText(2);
    events.push_back(std::move(event));
  }
  return events;
}

namespace {

constexpr std::string_view kRunColumns =
    "SELECT id, scenario_file, scenario_set, approaches, options, results_dir, "
    "started_epoch_millis, finished_epoch_millis, status, error, repeats, order_seed, "
    "winner_rule, (SELECT count(*) FROM result WHERE result.run_id = run.id AND finished = 1 "
    "AND failed = 1), request, resumes, resumed_epoch_millis, noise_thresholds FROM run";

RunRecord readRun(SqliteConnection& connection, const SqliteStatement& row) {
  RunRecord record;
  record.id = row.columnInt64(0);
  record.run.scenario_file = row.columnText(1);
  record.run.scenario_set = row.columnText(2);
  record.run.approaches = split(row.columnText(3), ',');
  record.run.options_text = row.columnText(4);
  record.run.results_dir = row.columnText(5);
  record.run.started_epoch_millis = row.columnInt64(6);
  record.finished_epoch_millis = row.columnInt64(7);
  record.status = runStatusFromName(row.columnText(8)).value_or(RunStatus::kFailed);
  record.error = row.columnText(9);
  record.run.repeats = static_cast<std::uint32_t>(row.columnInt64(10));
  record.run.order_seed = static_cast<std::uint64_t>(row.columnInt64(11));
  // A name this benchd does not know (a newer one wrote it) decides as the default rule.
  record.run.winner_rule =
      results::winnerRuleFromName(row.columnText(12)).value_or(results::WinnerRule::kSignificant);
  record.failed_results = static_cast<std::size_t>(row.columnInt64(13));
  record.run.request = row.columnText(14);
  record.run.resumes = static_cast<std::uint32_t>(row.columnInt64(15));
  record.run.resumed_epoch_millis = row.columnInt64(16);
  record.run.noise_thresholds = row.columnText(17);
  SqliteStatement specs =
      connection.prepare("SELECT label, value FROM run_spec WHERE run_id = ? ORDER BY position");
  specs.bind(1, record.id);
  while (specs.step()) {
    record.run.system_specs.emplace_back(specs.columnText(0), specs.columnText(1));
  }
  return record;
}

}  // namespace

std::vector<RunRecord> ResultStore::listRuns() const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(std::string(kRunColumns) + " ORDER BY id");
  std::vector<RunRecord> runs;
  while (select.step()) {
    runs.push_back(readRun(impl_->connection, select));
  }
  return runs;
}

std::vector<RunRecord> ResultStore::listRuns(const RunQuery& query) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(std::string(kRunColumns) +
                                                     (query.status ? " WHERE status = ?1" : "") +
                                                     " ORDER BY id DESC LIMIT ?2 OFFSET ?3");
  if (query.status) {
    select.bind(1, runStatusName(*query.status));
  }
  const auto clamped = [](std::size_t value) {
    return static_cast<std::int64_t>(
        std::min<std::size_t>(value, std::numeric_limits<std::int64_t>::max()));
  };
  select.bind(2, clamped(query.limit));
  select.bind(3, clamped(query.offset));
  std::vector<RunRecord> runs;
  while (select.step()) {
    runs.push_back(readRun(impl_->connection, select));
  }
  return runs;
}

std::size_t ResultStore::countRuns(std::optional<RunStatus> status) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      status ? "SELECT count(*) FROM run WHERE status = ?" : "SELECT count(*) FROM run");
  if (status) {
    select.bind(1, runStatusName(*status));
  }
  return select.step() ? static_cast<std::size_t>(select.columnInt64(0)) : 0;
}

std::optional<RunRecord> ResultStore::findRun(RunId run) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(std::string(kRunColumns) + " WHERE id = ?");
  select.bind(1, run);
  if (!select.step()) {
    return std::nullopt;
  }
  return readRun(impl_->connection, select);
}

std::vector<scenario::ScenarioRow> ResultStore::scenarioRows(RunId run) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      "SELECT name, workload, server_profiles, delay_call_depth, delay_millis, connections, "
      "requests_per_second, warmup_seconds, test_seconds, source_line, capacity_goal "
      "FROM scenario_row "
      "WHERE run_id = ? ORDER BY row_index");
  select.bind(1, run);
  std::vector<scenario::ScenarioRow> rows;
  while (select.step()) {
    scenario::ScenarioRow row;
    row.name = select.columnText(0);
    row.workload = select.columnText(1);
    row.server_profiles = split(select.columnText(2), '|');
    row.delay_call_depth = static_cast<std::uint32_t>(select.columnInt64(3));
    row.delay_millis = static_cast<std::uint32_t>(select.columnInt64(4));
    row.connections = static_cast<std::uint32_t>(select.columnInt64(5));
    if (!select.columnIsNull(6)) {
      row.requests_per_second = static_cast<std::uint32_t>(select.columnInt64(6));
    }
    row.warmup_seconds = static_cast<std::uint32_t>(select.columnInt64(7));
    row.test_seconds = static_cast<std::uint32_t>(select.columnInt64(8));
    row.source_line = static_cast<std::size_t>(select.columnInt64(9));
    if (const std::string goal(select.columnText(10)); !goal.empty()) {
      // Written by CapacityGoal::text(), so it reads back; a file edited by hand is refused.
      try {
        row.capacity_goal = scenario::CapacityGoal::parse(goal);
      } catch (const std::invalid_argument& error) {
        throw StoreError(file_.string() + ": run " + std::to_string(run) + ", row '" + row.name +
                         "': " + error.what());
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<results::SummaryRow> ResultStore::summaries(RunId run) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteConnection& connection = impl_->connection;
  SqliteStatement select = connection.prepare(
      "SELECT id, scenario, approach, failed, failure_reason, repeat_number, round_position "
      "FROM result WHERE run_id = ? AND finished = 1 ORDER BY row_index, id");
  select.bind(1, run);
  SqliteStatement metrics =
      connection.prepare("SELECT name, value FROM result_metric WHERE result_id = ?");
  SqliteStatement diagnostics =
      connection.prepare("SELECT name, value FROM result_diagnostic WHERE result_id = ?");
  std::vector<results::SummaryRow> rows;
  while (select.step()) {
    results::SummaryRow row;
    const ResultId id = select.columnInt64(0);
    row.scenario = select.columnText(1);
    row.approach = select.columnText(2);
    row.failed = select.columnInt64(3) != 0;
    row.failure_reason = select.columnText(4);
    row.round = static_cast<std::uint32_t>(select.columnInt64(5));
    row.round_position = static_cast<std::uint32_t>(select.columnInt64(6));
    {
      // A metric without a row is missing (a failed run stores none but its counts).
      row.metrics.fill(std::numeric_limits<double>::quiet_NaN());
      const StatementExecution execution(metrics);
      metrics.bind(1, id);
      while (metrics.step()) {
        if (const auto index = results::metricIndex(metrics.columnText(0))) {
          row.metrics[*index] = metrics.columnDouble(1);
        }
      }
      if (row.failed) {
        results::forgetFailedMetrics(row);  // older benchds stored a failure's zeros
      }
    }
    {
      const StatementExecution execution(diagnostics);
      diagnostics.bind(1, id);
      std::vector<std::pair<std::string, std::string>> pairs;
      while (diagnostics.step()) {
        pairs.emplace_back(diagnostics.columnText(0), diagnostics.columnText(1));
      }
      row.diagnostics = diagnosticsFromPairs(pairs);
      row.capacity = capacityFromPairs(pairs);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<ResultId> ResultStore::findResult(RunId run, const std::string& scenario,
                                                const std::string& approach,
                                                std::uint32_t round) const {
  const std::scoped_lock lock(impl_->mutex);
  SqliteStatement select = impl_->connection.prepare(
      "SELECT id FROM result WHERE run_id = ? AND scenario = ? AND approach = ? AND "
      "repeat_number = ?");
  select.bind(1, run);
  select.bind(2, std::string_view(scenario));
  select.bind(3, std::string_view(approach));
  select.bind(4, std::int64_t{round});
  if (!select.step()) {
    return std::nullopt;
  }
  return select.columnInt64(0);
}

std::vector<results::SecondRecord> ResultStore::seconds(ResultId result,
                                                        measurement::PhaseKind phase) const {
  const std::scoped_lock lock(impl_->mutex);
  return selectSeconds(impl_->connection, result, phase);
}

}  // namespace benchd::store
