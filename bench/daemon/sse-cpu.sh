#!/usr/bin/env bash
# The daemon's own CPU while SSE clients follow a run, against the same run followed by nobody.
#
# Goal (the issue): the daemon's own CPU while 10 SSE clients follow a run stays under 2 % of a
# core. The load generator runs inside the daemon process (threads benchd-load-N), so the
# process's CPU is mostly load generation; this script therefore measures per thread, from
# utime+stime in /proc/<pid>/task/*/stat, grouped by thread name:
#   http       the HTTP server's event loops (benchd-http-N): requests and the streams' writes
#   generator  the load generator's event loops (benchd-load-N), which live only for a phase
#   other      every other thread of the daemon (the run queue that runs the benchmark and
#              publishes its events, the worker supervisor, the main thread)
# "daemon's own" is http + other, i.e. everything but the generator.
#
# One daemon (`benchd serve`, port 0, state in a temporary folder) runs the same benchmark twice:
# one row of get-time (CONNECTIONS connections capped at RATE req/s, no delay, no warm-up,
# TEST_SECONDS of test) on APPROACH. The reference run has no stream client; the second is
# followed from its creation by CLIENTS `curl -N` clients on GET /api/v1/runs/{id}/events. The
# script polls GET /api/v1/runs/{id} every 0.25 s in both runs, so that cost cancels out.
#
# A thread's CPU is its last reading (at the end of the run, else its last sample: the threads
# are sampled every SAMPLE_PERIOD s) minus its reading at the start (0 for new threads). The
# process's CPU (/proc/<pid>/stat keeps exited threads' time) minus the threads' sum is shown as
# "unattributed": what exited threads (the generator's, the worker supervisor's pipe reader)
# used after their last sample, and the rounding of each thread's time to clock ticks.
#
# Printed per run: wall time (run created -> completed as seen by the script), CPU seconds and
# % of a core (CPU seconds / wall seconds * 100) of each group, then the difference the streams
# make, `event: snapshot` lines received per client (needs >= 1 per test second and an `end`
# event) and PASS/FAIL of the goal: daemon's own CPU (http + other) with the streams, plus all
# of the unattributed CPU to be safe, < 2 % of a core. Exits 1 when a check fails.
#
# Usage: bench/daemon/sse-cpu.sh [--test-seconds S] [--clients N] [--approach NAME]
#                                [--connections N] [--rate R] [--preset P] [--no-build] [-h]
#   --no-build  use build/P (default build/dev) as it is (e.g. while the tree does not compile)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

TEST_SECONDS=15
CLIENTS=10
APPROACH=callbacks-asio
CONNECTIONS=50
RATE=500
SAMPLE_PERIOD=0.2
GOAL_PERCENT=2
while [ $# -gt 0 ]; do
  case "$1" in
    --test-seconds) TEST_SECONDS="$2"; shift 2 ;;
    --clients) CLIENTS="$2"; shift 2 ;;
    --approach) APPROACH="$2"; shift 2 ;;
    --connections) CONNECTIONS="$2"; shift 2 ;;
    --rate) RATE="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$bench_shift" ;;
  esac
done

bench_require curl awk=mawk flock=util-linux
bench_build

# ---- daemon --------------------------------------------------------------------------------
bench_workdir

# A scenarios folder of one row; the workloads (and movies.json, which some of them post) are
# the repository's.
mkdir -p "$work/scenarios" "$work/state"
ln -s "$PWD/scenarios/workloads" "$work/scenarios/workloads"
ln -s "$PWD/scenarios/movies.json" "$work/scenarios/movies.json"
cat > "$work/scenarios/sse-cpu.csv" <<CSV
scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds
sse-cpu-get-time,get-time.js,,0,0,$CONNECTIONS,$RATE,0,$TEST_SECONDS
CSV
cat > "$work/benchd.conf" <<CONF
port = 0
state_dir = $work/state
scenarios_dir = $work/scenarios
CONF

"$benchd" serve --config "$work/benchd.conf" > "$work/serve.out" 2> "$work/serve.err" &
daemon_pid=$!
bench_track "$daemon_pid"
port=""
if bench_wait_until 10 grep -q '^benchd serve: listening on' "$work/serve.out"; then
  port=$(sed -n 's|^benchd serve: listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$work/serve.out")
fi
if [ -z "$port" ]; then
  bench_log "benchd serve did not start:"; cat "$work/serve.err" >&2; exit 1
fi
token=$(cat "$work/state/token")
api="http://127.0.0.1:$port/api/v1"
bench_log "benchd serve (pid $daemon_pid) on port $port; $APPROACH, $CONNECTIONS connections at $RATE req/s, ${TEST_SECONDS}s test"

call() { curl -sS -H "Authorization: Bearer $token" "$@"; }

# ---- per-thread CPU ------------------------------------------------------------------------
# Prints "tid comm ticks" for every live thread of the daemon (bash builtins only: no fork).
read_threads() {
  local task line comm rest
  local -a fields
  for task in /proc/"$daemon_pid"/task/*; do
    { read -r line < "$task/stat"; } 2>/dev/null || continue
    comm=${line#*(}; comm=${comm%)*}
    rest=${line##*) }
    read -ra fields <<<"$rest"
    # fields[0] is stat's field 3 (state): utime (14) and stime (15) are [11] and [12].
    echo "${task##*/} $comm $((fields[11] + fields[12]))"
  done
}
process_ticks() { local line; read -r line < "/proc/$daemon_pid/stat"; awk '{print $12 + $13}' <<<"${line##*) }"; }
sampler() { while :; do read_threads; sleep "$SAMPLE_PERIOD"; done; }
now() { date +%s.%N; }

# measure NAME CLIENTS: one run followed by CLIENTS streams. Appends "NAME wall http other
# generator unattributed" (seconds) to $work/results, "NAME count..." (snapshot events per
# client) to $work/events and "NAME clients-that-got-end" to $work/ends.
measure() {
  local name="$1" clients="$2" i
  bench_log "== $name: run with $clients stream client(s)"
  read_threads > "$work/$name.start"
  local start_ticks start_time
  start_ticks=$(process_ticks)
  start_time=$(now)
  sampler > "$work/$name.samples" &
  sampler_pid=$!
  bench_track "$sampler_pid"

  local body id
  body=$(call -H 'Content-Type: application/json' \
    -d "{\"repeat\":1,\"scenarioFile\":\"sse-cpu.csv\",\"approaches\":[\"$APPROACH\"],\"warmupSeconds\":0,\"testSeconds\":$TEST_SECONDS}" \
    "$api/runs")
  id=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' <<<"$body")
  if [ -z "$id" ]; then bench_die "cannot create a run: $body"; fi

  local client_pids=() pid
  for ((i = 0; i < clients; i++)); do
    curl -s -N -H "Authorization: Bearer $token" "$api/runs/$id/events" > "$work/$name.client$i" &
    client_pids+=($!)
    bench_track "$!"
  done

  local status="" deadline=$((SECONDS + TEST_SECONDS + 120))
  while [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.25
    status=$(call "$api/runs/$id" | grep -o '"status":"[a-z]*"' | head -n 1 | cut -d'"' -f4)
    case "$status" in queued|running) ;; *) break ;; esac
  done
  local end_time end_ticks
  end_time=$(now)
  end_ticks=$(process_ticks)
  read_threads > "$work/$name.end"
  bench_stop "$sampler_pid"
  if [ "$status" != completed ]; then
    bench_die "run $id ended '$status': $(call "$api/runs/$id")"
  fi

  # The streams close after the run's `end` event; give them a moment.
  for pid in "${client_pids[@]}"; do
    bench_wait_until 5 bench_ended "$pid" || true
    bench_stop "$pid"
  done
  local counts="" ends=0
  for ((i = 0; i < clients; i++)); do
    counts+=" $(grep -c '^event: snapshot' "$work/$name.client$i" || true)"
    if grep -q '^event: end' "$work/$name.client$i"; then ends=$((ends + 1)); fi
  done
  echo "$name$counts" >> "$work/events"
  echo "$name $ends" >> "$work/ends"

  # Per thread: last reading (end, else last sample) minus the start reading (0 if new).
  awk -v name="$name" -v hz="$bench_ticks_per_second" -v detail="$work/$name.threads" -v wall="$(awk -v a="$start_time" -v b="$end_time" 'BEGIN {print b - a}')" \
      -v total=$((end_ticks - start_ticks)) '
    FILENAME ~ /\.start$/ { start[$1] = $3; next }
    { last[$1] = $3; comm[$1] = $2 }
    END {
      for (tid in last) {
        d = last[tid] - start[tid]
        if (comm[tid] ~ /^benchd-http/) http += d
        else if (comm[tid] ~ /^benchd-load/) gen += d
        else other += d
        sum += d
        printf "%s %s %.2f\n", tid, comm[tid], d / hz > detail
      }
      printf "%s %.3f %.2f %.2f %.2f %.2f\n", name, wall, http / hz, other / hz, gen / hz, (total - sum) / hz
    }' "$work/$name.start" "$work/$name.samples" "$work/$name.end" >> "$work/results"
  # Where it went, thread by thread (stderr).
  bench_log "CPU s by thread (tid name): $(sort -n "$work/$name.threads" | awk '{printf "%s%s %s %s", sep, $1, $2, $3; sep=", "}')"
  bench_log "run $id completed in $(awk -v a="$start_time" -v b="$end_time" 'BEGIN {printf "%.1f", b - a}') s"
}

measure reference 0
measure streams "$CLIENTS"

# ---- report --------------------------------------------------------------------------------
echo
echo "benchd serve: $APPROACH, get-time $CONNECTIONS connections at $RATE req/s, ${TEST_SECONDS}s test, no warm-up; CPU = utime+stime per thread"
awk -v clients="$CLIENTS" '
  { w[$1] = $2; v[$1, 1] = $3; v[$1, 2] = $4; v[$1, 3] = $3 + $4; v[$1, 4] = $5; v[$1, 5] = $6
    v[$1, 6] = $3 + $4 + $5 + $6 }
  END {
    split("http|other|own (http+oth)|generator|unattributed|process", title, "|")
    printf "%-22s %7s", "run", "wall s"
    for (c = 1; c <= 6; c++) printf " | %14s", title[c]
    printf "\n%-22s %7s", "", ""
    for (c = 1; c <= 6; c++) printf " | %14s", "cpu s   %core"
    printf "\n"
    split("reference|streams", run, "|")
    label["reference"] = "reference (0 streams)"; label["streams"] = clients " streams"
    for (r = 1; r <= 2; r++) {
      n = run[r]; printf "%-22s %7.2f", label[n], w[n]
      for (c = 1; c <= 6; c++) printf " | %6.2f %6.2f%%", v[n, c], 100 * v[n, c] / w[n]
      printf "\n"
    }
    # Differences of % of a core: the two runs need not last exactly as long.
    printf "%-22s %7.2f", "difference (streams)", w["streams"] - w["reference"]
    for (c = 1; c <= 6; c++) {
      printf " | %6.2f %6.2f%%", v["streams", c] - v["reference", c],
        100 * (v["streams", c] / w["streams"] - v["reference", c] / w["reference"])
    }
    printf "\n"
  }' "$work/results"
awk -v hz="$bench_ticks_per_second" '$1 == "streams" {
  printf "unattributed = process (/proc/PID/stat, keeps exited threads) - the threads listed; 1 tick = %.2f s = %.3f %% of a core here\n", 1 / hz, 100 / hz / $2
}' "$work/results"

echo
status=0
read -r _ counts < <(grep '^streams' "$work/events")
read -r _ ends < <(grep '^streams' "$work/ends")
events_ok=$(awk -v need="$TEST_SECONDS" -v c="$counts" 'BEGIN {
  n = split(c, a, " "); ok = n > 0
  for (i = 1; i <= n; i++) if (a[i] < need) ok = 0
  print ok
}')
echo "snapshot events per client: $counts (need >= $TEST_SECONDS each); 'end' received by $ends of $CLIENTS"
if [ "$events_ok" = 1 ] && [ "$ends" -eq "$CLIENTS" ]; then
  echo "PASS every client got >= 1 snapshot per test second and the end event"
else
  echo "FAIL a client missed snapshots or the end event"; status=1
fi
# Judged on the upper bound: the unattributed CPU counted as the daemon's own.
verdict=$(awk -v goal="$GOAL_PERCENT" -v clients="$CLIENTS" '$1 == "streams" {
  own = 100 * ($3 + $4) / $2; bound = 100 * ($3 + $4 + $6) / $2
  printf "%s daemon own CPU (http + other) with %s streams: %.2f %% of a core, %.2f %% with all unattributed CPU (goal < %s %%)",
    (bound < goal ? "PASS" : "FAIL"), clients, own, bound, goal
}' "$work/results")
echo "$verdict"
case "$verdict" in FAIL*) status=1 ;; esac
exit "$status"
