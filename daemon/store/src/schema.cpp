#include "schema.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
#include <benchd/sqlite/sqlite_error.hpp>
#include <benchd/sqlite/sqlite_transaction.hpp>
#include <benchd/store/result_store.hpp>

#include <array>
#include <string>

namespace benchd::store {
namespace {

// The migrations, oldest first: step N brings a file from version N - 1 to N. Released steps
// are never edited; a schema change is a new step at the end (and kSchemaVersion + 1), and
// docs/store-schema.md, the contract with benchd-report, changes with it (its test fails until
// it does).
constexpr std::array<const char*, ResultStore::kSchemaVersion> kMigrations = {
    // 1: runs, their scenario rows and the summary of each (row, approach).
    R"sql(
CREATE TABLE run (
  id INTEGER PRIMARY KEY,
  scenario_file TEXT NOT NULL,
  scenario_set TEXT NOT NULL,
  approaches TEXT NOT NULL,
  options TEXT NOT NULL,
  results_dir TEXT NOT NULL,
  started_epoch_millis INTEGER NOT NULL,
  finished_epoch_millis INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  error TEXT NOT NULL DEFAULT ''
);
CREATE TABLE run_spec (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  label TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (run_id, position)
);
CREATE TABLE scenario_row (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  name TEXT NOT NULL,
  workload TEXT NOT NULL,
  server_profiles TEXT NOT NULL,
  delay_call_depth INTEGER NOT NULL,
  delay_millis INTEGER NOT NULL,
  connections INTEGER NOT NULL,
  requests_per_second INTEGER,
  warmup_seconds INTEGER NOT NULL,
  test_seconds INTEGER NOT NULL,
  source_line INTEGER NOT NULL,
  PRIMARY KEY (run_id, row_index)
);
CREATE TABLE result (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  scenario TEXT NOT NULL,
  approach TEXT NOT NULL,
  finished INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  failure_reason TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, scenario, approach)
);
CREATE TABLE result_metric (
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (result_id, name)
);
CREATE TABLE result_diagnostic (
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (result_id, name)
);
)sql",
    // 2: the per-second series: load-generator intervals and the samples taken at their ends.
    R"sql(
CREATE TABLE load_second (
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  phase TEXT NOT NULL,
  idx INTEGER NOT NULL,
  start_micros INTEGER NOT NULL,
  duration_micros INTEGER NOT NULL,
  end_epoch_millis INTEGER NOT NULL,
  requests_sent INTEGER NOT NULL,
  requests_ok INTEGER NOT NULL,
  requests_requested INTEGER NOT NULL,
  errors_connection_refused INTEGER NOT NULL,
  errors_connect_timeout INTEGER NOT NULL,
  errors_connection_reset INTEGER NOT NULL,
  errors_request_timeout INTEGER NOT NULL,
  errors_http_4xx INTEGER NOT NULL,
  errors_http_5xx INTEGER NOT NULL,
  errors_other INTEGER NOT NULL,
  bytes_sent INTEGER NOT NULL,
  bytes_received INTEGER NOT NULL,
  connects INTEGER NOT NULL,
  dropped_arrivals INTEGER NOT NULL,
  late_arrivals INTEGER NOT NULL,
  interrupted_requests INTEGER NOT NULL,
  achieved_requests_per_second REAL NOT NULL,
  intended_requests_per_second REAL NOT NULL,
  active_vus INTEGER NOT NULL,
  generator_cpu_percent REAL NOT NULL,
  latency_count INTEGER NOT NULL,
  latency_min REAL NOT NULL,
  latency_p50 REAL NOT NULL,
  latency_p90 REAL NOT NULL,
  latency_p99 REAL NOT NULL,
  latency_max REAL NOT NULL,
  uncorrected_count INTEGER NOT NULL,
  uncorrected_min REAL NOT NULL,
  uncorrected_p50 REAL NOT NULL,
  uncorrected_p90 REAL NOT NULL,
  uncorrected_p99 REAL NOT NULL,
  uncorrected_max REAL NOT NULL,
  latency_buckets BLOB NOT NULL,
  PRIMARY KEY (result_id, phase, idx)
);
CREATE TABLE system_second (
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  phase TEXT NOT NULL,
  idx INTEGER NOT NULL,
  epoch_millis INTEGER NOT NULL,
  host_interval_seconds REAL NOT NULL,
  host_cpu_user_percent REAL NOT NULL,
  host_cpu_system_percent REAL NOT NULL,
  host_cpu_iowait_percent REAL NOT NULL,
  host_ram_used_percent REAL NOT NULL,
  host_tcp_sockets_in_use INTEGER NOT NULL,
  host_loopback_rx_bytes INTEGER NOT NULL,
  host_loopback_tx_bytes INTEGER NOT NULL,
  host_loopback_rx_packets INTEGER NOT NULL,
  host_loopback_tx_packets INTEGER NOT NULL,
  host_tcp_active_opens INTEGER NOT NULL,
  host_tcp_passive_opens INTEGER NOT NULL,
  worker_present INTEGER NOT NULL,
  worker_cpu_percent REAL NOT NULL,
  worker_cpu_micros INTEGER NOT NULL,
  worker_rss_bytes INTEGER NOT NULL,
  worker_threads INTEGER NOT NULL,
  worker_voluntary_context_switches INTEGER NOT NULL,
  worker_involuntary_context_switches INTEGER NOT NULL,
  worker_open_fds INTEGER NOT NULL,
  generator_present INTEGER NOT NULL,
  generator_cpu_percent REAL NOT NULL,
  generator_cpu_micros INTEGER NOT NULL,
  generator_rss_bytes INTEGER NOT NULL,
  generator_threads INTEGER NOT NULL,
  generator_voluntary_context_switches INTEGER NOT NULL,
  generator_involuntary_context_switches INTEGER NOT NULL,
  generator_open_fds INTEGER NOT NULL,
  worker_stats_epoch_millis INTEGER,
  worker_heap_bytes INTEGER,
  worker_counters TEXT,
  PRIMARY KEY (result_id, phase, idx)
);
CREATE INDEX result_by_run ON result (run_id, row_index);
)sql",
    // 3: the daemon's run events (phase, snapshot, row, end), so a client that reconnects with
    // Last-Event-ID gets what it missed; and the highest run id ever given, so a deleted run's
    // id is never given again (a bookmark, a comparison or a Last-Event-ID must not silently
    // point at another run; `run.id` has no AUTOINCREMENT, and adding it means rebuilding the
    // table).
    R"sql(
CREATE TABLE run_id_high_water (id INTEGER NOT NULL);
INSERT INTO run_id_high_water (id) SELECT coalesce(max(id), 0) FROM run;
CREATE TABLE run_event (
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  sequence INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, sequence)
);
)sql",
    // 4: repeated runs. A result is one run of a (row, approach): repeat_number counts a
    // pair's runs from 1 and round_position is the approach's place in its round's shuffled
    // order (from 1; 0 for results stored before this step), so the unique key gains the repeat.
    // SQLite cannot change a table's constraints, so `result` is rebuilt: the old table is
    // renamed aside without touching the references to it (legacy_alter_table), and
    // migrateSchema runs this step with foreign keys off, so dropping it deletes no children.
    // The run records how many repeats it asked for, the seed of its round orders and the
    // rule that decides its winners.
    R"sql(
PRAGMA legacy_alter_table = ON;
ALTER TABLE result RENAME TO result_before_repeats;
CREATE TABLE result (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
  row_index INTEGER NOT NULL,
  scenario TEXT NOT NULL,
  approach TEXT NOT NULL,
  repeat_number INTEGER NOT NULL DEFAULT 1,
  round_position INTEGER NOT NULL DEFAULT 0,
  finished INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  failure_reason TEXT NOT NULL DEFAULT '',
  UNIQUE (run_id, scenario, approach, repeat_number)
);
INSERT INTO result (id, run_id, row_index, scenario, approach, finished, failed, failure_reason)
  SELECT id, run_id, row_index, scenario, approach, finished, failed, failure_reason
  FROM result_before_repeats;
DROP TABLE result_before_repeats;
PRAGMA legacy_alter_table = OFF;
CREATE INDEX result_by_run ON result (run_id, row_index);
ALTER TABLE run ADD COLUMN repeats INTEGER NOT NULL DEFAULT 1;
ALTER TABLE run ADD COLUMN order_seed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run ADD COLUMN winner_rule TEXT NOT NULL DEFAULT 'significant';
)sql",
    // 5: the host's size with every second (its online CPUs and MemTotal), so what the rest of
    // the host used can be told from the worker's and benchd's own share in every stored second
    // (results::otherCpuPercent, otherRamPercent). 0 in seconds stored before.
    R"sql(
ALTER TABLE system_second ADD COLUMN host_cpus INTEGER NOT NULL DEFAULT 0;
ALTER TABLE system_second ADD COLUMN host_ram_total_bytes INTEGER NOT NULL DEFAULT 0;
)sql",
    // 6: the database of a `postgres` row, all its processes, sampled like the worker
    // (results::SystemSample::database): CPU, proportional memory, processes. Absent (0) in
    // other rows and in seconds stored before.
    R"sql(
ALTER TABLE system_second ADD COLUMN database_present INTEGER NOT NULL DEFAULT 0;
ALTER TABLE system_second ADD COLUMN database_cpu_percent REAL NOT NULL DEFAULT 0;
ALTER TABLE system_second ADD COLUMN database_cpu_micros INTEGER NOT NULL DEFAULT 0;
ALTER TABLE system_second ADD COLUMN database_rss_bytes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE system_second ADD COLUMN database_processes INTEGER NOT NULL DEFAULT 0;
)sql",
    // 7: what a run was asked for (runner::storedRequestJson), so an interrupted or stopped run
    // can be resumed; how often it was (resumes, the latest start of one); and the noise
    // thresholds its winners are decided with (results::writeNoiseThresholds' text). Runs
    // stored before have no request and cannot be resumed; their thresholds are empty, which
    // reads as the thresholds of the benchd that reads them.
    R"sql(
ALTER TABLE run ADD COLUMN request TEXT NOT NULL DEFAULT '';
ALTER TABLE run ADD COLUMN resumes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run ADD COLUMN resumed_epoch_millis INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run ADD COLUMN noise_thresholds TEXT NOT NULL DEFAULT '';
)sql",
    // 8: capacity rows (scenario files' capacityGoal column, '' for a fixed load) and the
    // fixed-rate trials of each capacity search, in the order they ran. A search's result is
    // stored as capacity_* diagnostics; its trials' seconds are the result's load and system
    // seconds, numbered on across trials (first_second..last_second of the test phase).
    R"sql(
ALTER TABLE scenario_row ADD COLUMN capacity_goal TEXT NOT NULL DEFAULT '';
CREATE TABLE capacity_trial (
  result_id INTEGER NOT NULL REFERENCES result(id) ON DELETE CASCADE,
  trial INTEGER NOT NULL,
  intended_requests_per_second REAL NOT NULL,
  achieved_requests_per_second REAL NOT NULL,
  goal_latency_millis REAL NOT NULL,
  latency_p50_millis REAL NOT NULL,
  latency_p99_millis REAL NOT NULL,
  requests_ok INTEGER NOT NULL,
  requests_error INTEGER NOT NULL,
  dropped_arrivals INTEGER NOT NULL,
  generator_cpu_percent REAL NOT NULL,
  outcome TEXT NOT NULL,
  confirmation INTEGER NOT NULL,
  reason TEXT NOT NULL,
  first_second INTEGER NOT NULL,
  last_second INTEGER NOT NULL,
  PRIMARY KEY (result_id, trial)
);
)sql",
};

int userVersion(sqlite::SqliteConnection& connection) {
  sqlite::SqliteStatement statement = connection.prepare("PRAGMA user_version");
  return statement.step() ? static_cast<int>(statement.columnInt64(0)) : 0;
}

/// Turns foreign-key enforcement off for its lifetime and restores what it was: a step that
/// rebuilds a table must drop the old one without its ON DELETE CASCADE emptying the children.
/// The pragma is a no-op inside a transaction, so this wraps the steps' transactions; each step
/// checks the keys itself before it commits.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(sqlite::SqliteConnection& connection) : connection_(connection) {
    sqlite::SqliteStatement statement = connection_.prepare("PRAGMA foreign_keys");
    were_on_ = statement.step() && statement.columnInt64(0) != 0;
    connection_.execute("PRAGMA foreign_keys = OFF");
  }
  ~ForeignKeysOff() {
    if (were_on_) {
      try {
        connection_.execute("PRAGMA foreign_keys = ON");
      } catch (const sqlite::SqliteError&) {
        // Nothing left to do: the connection is unusable anyway.
      }
    }
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  sqlite::SqliteConnection& connection_;
  bool were_on_ = false;
};

void checkForeignKeys(sqlite::SqliteConnection& connection, int step) {
  sqlite::SqliteStatement check = connection.prepare("PRAGMA foreign_key_check");
  if (check.step()) {
    throw sqlite::SqliteError("migration step " + std::to_string(step) + " left a row of table '" +
                              std::string(check.columnText(0)) + "' without its parent");
  }
}

}  // namespace

int schemaVersionOf(sqlite::SqliteConnection& connection) {
  return userVersion(connection);
}

void migrateSchema(sqlite::SqliteConnection& connection, int target_version) {
  const int target = std::min(target_version, ResultStore::kSchemaVersion);
  if (userVersion(connection) >= target) {
    return;
  }
  const ForeignKeysOff keys_off(connection);
  for (;;) {
    // The version is read inside the write transaction: two processes opening a new file at
    // once must not both run the same step.
    sqlite::SqliteTransaction transaction(connection);
    const int version = userVersion(connection);
    if (version >= target) {
      return;  // the transaction rolls back; it changed nothing
    }
    connection.execute(kMigrations[static_cast<std::size_t>(version)]);
    checkForeignKeys(connection, version + 1);
    connection.execute(("PRAGMA user_version = " + std::to_string(version + 1)).c_str());
    transaction.commit();
  }
}

}  // namespace benchd::store
