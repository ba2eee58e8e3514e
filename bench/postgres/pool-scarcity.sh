#!/usr/bin/env bash
# The postgres profile with a scarce and an ample connection pool: every approach plugin on the
# original's PostgreSQL rows (scenarios-postgres.csv, shortened) and on one database-bound row at
# high concurrency (--connections closed-loop clients, postgres|no-cache, no delay: every request
# is a query), each with --db-pool 16 and with --db-pool 500 (the original's HikariCP size).
#
# One PostgreSQL 15 cluster, started here in a temporary folder (as the postgres user when run as
# root) and stopped at the end, serves every run through `benchd run --postgres`, so the
# database's CPU can be read here from /proc: the postmaster's own and its reaped children's
# ticks plus its live children's, before and after each run of the high-concurrency row (one
# `benchd run` per approach and pool for that row; the shortened original rows run once per pool
# over every approach).
#
# Printed per row, approach and pool: requests/s achieved, latency p99, errors, the time an
# average request waited for a connection (the plugin's db_pool_wait_micros over the test
# phase / requests), the requests that gave up waiting (db_pool_timeouts), for the
# high-concurrency row the database's CPU in % of one core, and the errors by class. Then, per
# approach, the ratio of requests/s with pool 16 to pool 500 on the high-concurrency row: how much
# a scarce pool costs each model, measured in the same invocation. Last, the ERROR, FATAL and
# PANIC lines of PostgreSQL's log, counted by message.
#
# Usage: bench/postgres/pool-scarcity.sh [--preset P] [--connections N] [--duration S]
#                                        [--only a,b] [--skip-original-rows] [-h]
#   build/P is run as it is, never built here (--no-build is implied): build benchd_runtime first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

connections=2000
duration=10
only=""
original_rows=1
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --skip-original-rows) original_rows=0; shift ;;
    *) bench_common_option "$@"; shift "$bench_shift" ;;
  esac
done

bench_use_tree "build/$preset"  # benchd
bin_dir=/usr/lib/postgresql/15/bin
bench_require "$bin_dir/initdb=postgresql-15"

bench_workdir
as_server_user=()
if [ "$(id -u)" = 0 ]; then
  chown postgres "$work"
  as_server_user=(runuser -u postgres --)
fi
# The cluster leaves this script's process tree (pg_ctl makes the postmaster a daemon): it is
# stopped at exit by the pid its pid file names, with SIGINT (pg_ctl's -m fast), so that one
# still starting when the script is stopped goes too.
stop_cluster() {
  local postmaster
  postmaster=$(head -n 1 "$work/data/postmaster.pid" 2>/dev/null) || return 0
  # A pid file left by a crash may name a later, unrelated process.
  [ "$(cat "/proc/$postmaster/comm" 2>/dev/null)" = postgres ] || return 0
  bench_track --signal INT "$postmaster"
  bench_stop "$postmaster"
}
bench_at_exit stop_cluster

echo "== starting PostgreSQL 15 in $work"
"${as_server_user[@]}" "$bin_dir/initdb" -D "$work/data" -U postgres -A trust --locale=C \
  -E UTF8 >/dev/null
"${as_server_user[@]}" "$bin_dir/pg_ctl" -D "$work/data" -l "$work/postgresql.log" -w -o \
  "-k $work -c listen_addresses='' -c log_line_prefix='%m [%p] ' -c max_connections=600 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null
postmaster=$(head -1 "$work/data/postmaster.pid")
conninfo="host=$work port=5432 dbname=postgres user=postgres"

# The cluster's CPU ticks so far: the postmaster's own and its reaped children's, and its live
# children's (backends still open, the background processes).
database_ticks() {
  local total children child
  total=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat")
  children=$(ps -o pid= --ppid "$postmaster" || true)
  for child in $children; do
    if [ -r "/proc/$child/stat" ]; then
      total=$((total + $(awk '{print $14 + $15}' "/proc/$child/stat" 2>/dev/null || echo 0)))
    fi
  done
  echo "$total"
}

approaches=$("$benchd" plugins --json 2>/dev/null | python3 -c '
import json, sys
print(" ".join(p["name"] for p in json.load(sys.stdin)["accepted"]))')
if [ -n "$only" ]; then
  approaches=${only//,/ }
fi
echo "approaches: $approaches"

high_row="db-bound-${connections}-connections-postgres-no-cache"
header="scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds"
printf '%s\n%s,get-movies.js,postgres|no-cache,0,0,%s,,2,%s\n' "$header" "$high_row" \
  "$connections" "$duration" >"$work/high.csv"

summary="$work/summary.tsv"
: >"$summary"
# Appends one line per (row, approach) of a finished run to $summary:
# pool, row, approach, req/s, p99 ms, errors, wait µs per request, pool timeouts, db CPU %,
# the errors by class (the load generator's, e.g. "request_timeout=1 http_5xx=3"; "-" for none).
collect() {
  local pool="$1" folder="$2" db_cpu="$3"
  python3 - "$pool" "$folder" "$db_cpu" >>"$summary" <<'EOF'
import csv, sqlite3, sys
pool, folder, db_cpu = sys.argv[1], sys.argv[2], sys.argv[3]
results = f"{folder}/{[l for l in open(folder + '/path')][0].strip()}/results.csv"
rows = list(csv.DictReader(open(results)))
store = sqlite3.connect(f"{folder}/benchd.sqlite")
def counters(result_id, pick):
    row = store.execute(
        f"SELECT worker_counters FROM system_second WHERE result_id = ? AND phase = 'test' "
        f"AND worker_counters IS NOT NULL ORDER BY idx {pick} LIMIT 1", (result_id,)).fetchone()
    values = {}
    for line in (row[0] if row and row[0] else "").splitlines():
        name, _, value = line.partition("=")
        if value:
            values[name] = int(value)
    return values
for row in rows:
    found = store.execute("SELECT id FROM result WHERE scenario = ? AND approach = ? "
                          "ORDER BY id DESC LIMIT 1", (row["scenario"], row["approach"])).fetchone()
    first, last = (counters(found[0], "ASC"), counters(found[0], "DESC")) if found else ({}, {})
    delta = lambda name: last.get(name, 0) - first.get(name, 0)
    ok = float(row.get("requests_ok") or 0)
    def diagnostic(name):
        value = store.execute("SELECT value FROM result_diagnostic WHERE result_id = ? AND "
                              "name = ?", (found[0] if found else -1, name)).fetchone()
        return value[0] if value and value[0] else None
    achieved = diagnostic("achieved_requests_per_second")
    rate = float(achieved) if achieved else 0.0
    classes = diagnostic("errors_by_class") or "-"
    wait = delta("db_pool_wait_micros") / ok if ok else 0
    print("\t".join([pool, row["scenario"], row["approach"], f"{rate:.0f}",
                     row.get("latency_millis_p99", ""), row.get("requests_error", ""),
                     f"{wait:.0f}", str(delta("db_pool_timeouts")), db_cpu, classes]))
EOF
}

for pool in 16 500; do
  if [ "$original_rows" = 1 ]; then
    echo "== scenarios-postgres.csv (warm-up 2 s, test $duration s), pool $pool, every approach"
    out="$work/original-$pool"
    mkdir -p "$out"
    echo scenarios-postgres >"$out/path"
    bench_run "$benchd" run scenarios-postgres.csv --repeat 1 -w 2 -t "$duration" -o "$out" --quiet \
      --postgres "$conninfo" --db-pool "$pool" -a "${approaches// /,}" >/dev/null ||
      [ $? -eq 3 ] # 3: completed with failed results, which the table shows
    collect "$pool" "$out" ""
  fi
  for approach in $approaches; do
    echo "== $high_row, pool $pool, $approach"
    out="$work/high-$pool-$approach"
    mkdir -p "$out"
    echo high >"$out/path"
    before=$(database_ticks)
    started=$(date +%s.%N)
    bench_run "$benchd" run "$work/high.csv" --repeat 1 -o "$out" --quiet --postgres "$conninfo" \
      --db-pool "$pool" -a "$approach" >/dev/null ||
      [ $? -eq 3 ] # 3: completed with a failed result
    after=$(database_ticks)
    elapsed=$(python3 -c "import time; print(time.time() - $started)")
    # Over the whole invocation (warm-up, test and the reset): the database's work per second.
    db_cpu=$(python3 -c \
      "print(f'{100.0 * ($after - $before) / $bench_ticks_per_second / $elapsed:.0f}')")
    collect "$pool" "$out" "$db_cpu"
  done
done

echo
echo "pool  row                                          approach         req/s    p99 ms  errors  wait µs/req  timeouts  db CPU %  errors by class"
sort -t$'\t' -k2,2 -k3,3 -k1,1n "$summary" |
  awk -F'\t' '{printf "%-5s %-44s %-15s %7s %9s %7s %12s %9s %9s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10}'
echo
echo "requests/s with pool 16 / with pool 500 on $high_row (same invocation):"
python3 - "$summary" "$high_row" <<'EOF'
import sys
rates = {}
for line in open(sys.argv[1]):
    pool, row, approach, rate = line.rstrip("\n").split("\t")[:4]
    if row == sys.argv[2]:
        rates[(approach, pool)] = float(rate)
for approach in sorted({a for a, _ in rates}):
    scarce, ample = rates.get((approach, "16")), rates.get((approach, "500"))
    if scarce is not None and ample:
        print(f"  {approach:15s} {scarce / ample:5.2f}  ({scarce:.0f} / {ample:.0f})")
EOF
echo
# A 5xx of the service is the database deadline's 503 or a PostgreSQL error's 500: the server's
# own log (lines "<time> [<pid>] LEVEL: message", the log_line_prefix set above) tells what
# PostgreSQL refused or failed ("ERROR: ..."). Its "FATAL: connection to
# client lost" lines are connections dropped under a running statement, by a deadline or by a
# worker's stop at the end of a run: not an error of PostgreSQL's.
problems=$(grep -E '\] (ERROR|FATAL|PANIC): ' "$work/postgresql.log" |
  sed -E 's/^.*\] (ERROR|FATAL|PANIC)/\1/' || true)
if [ -z "$problems" ]; then
  echo "PostgreSQL's log: no ERROR, FATAL or PANIC line"
else
  echo "PostgreSQL's log: $(wc -l <<<"$problems") ERROR/FATAL/PANIC lines, by message:"
  sort <<<"$problems" | uniq -c | sort -rn | head -10
fi
