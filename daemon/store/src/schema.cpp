#include "schema.hpp"

#include <benchd/sqlite/sqlite_connection.hpp>
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
};

int userVersion(sqlite::SqliteConnection& connection) {
  sqlite::SqliteStatement statement = connection.prepare("PRAGMA user_version");
  return statement.step() ? static_cast<int>(statement.columnInt64(0)) : 0;
}

}  // namespace

int schemaVersionOf(sqlite::SqliteConnection& connection) {
  return userVersion(connection);
}

void migrateSchema(sqlite::SqliteConnection& connection, int target_version) {
  const int target = std::min(target_version, ResultStore::kSchemaVersion);
  for (;;) {
    // The version is read inside the write transaction: two processes opening a new file at
    // once must not both run the same step.
    sqlite::SqliteTransaction transaction(connection);
    const int version = userVersion(connection);
    if (version >= target) {
      return;  // the transaction rolls back; it changed nothing
    }
    connection.execute(kMigrations[static_cast<std::size_t>(version)]);
    connection.execute(("PRAGMA user_version = " + std::to_string(version + 1)).c_str());
    transaction.commit();
  }
}

}  // namespace benchd::store
