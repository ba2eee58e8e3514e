#!/usr/bin/env bash
# Every approach plugin at about 10,000 keep-alive connections, each request waiting 100 ms:
# the study's question at scale. A second row calls itself once (depth 1), so the worker holds
# an upstream connection and a nested request per client request as well.
#
# The worker runs on one core, the load generator (benchd load, one thread) on the other
# (taskset). For each plugin it prints requests/s as a ratio to the best plugin of the same row
# and to the ideal (connections / delay: every connection answered once per delay), latency p50
# and p99, errors, the worker's peak OS threads and resident memory (sampled from /proc every
# 0.2 s) and its CPU time per request. Thread-per-connection plugins get a pool as large as the
# connections (--option max_threads, max_queued, backlog), as the original gave its
# platform-thread server one thread per connection.
#
# Limits: each process needs a descriptor per connection; at depth 1 the worker needs three per
# client connection (the inbound one, the nested call's upstream one and that call's server
# side, all in the same process). The script raises the open-file soft limit to the hard limit;
# where the hard limit is too low for depth 1 it runs that row with as many connections as fit
# and says so. It also names the listen backlog and ephemeral port range it runs with.
#
# Each plugin first gets a warm-up run of --warmup seconds (a thread pool grows to its size,
# caches fill), whose figures are discarded; the measured run follows on new connections once
# the worker has let go of the warm-up's (none of them left waiting in its listen backlog or
# open on its side after the client closed it), so it does not begin behind their backlog.
#
# Rounds: this machine's speed drifts by tens of percent over minutes (a shared VM), so one
# run per plugin in sequence would compare plugins measured at different speeds. The script
# runs --rounds rounds (default 3), each round every plugin once in turn, and reports per
# plugin the round with the median requests/s (its other figures with it), the lowest and
# highest requests/s of the rounds, errors summed over the rounds, and the highest threads and
# RSS. Ratios are between these medians.
#
# Usage: bench/plugins/high-concurrency.sh [--connections N] [--delay MS] [--duration S]
#                                          [--warmup S] [--rounds N] [--preset P] [--only a,b]
#                                          [--no-build] [-h]
#   --no-build  run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

connections=9800
delay=100
duration=10
warmup=3
rounds=3
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections="$2"; shift 2 ;;
    --delay) delay="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$bench_shift" ;;
  esac
done

bench_build

# ---- limits -------------------------------------------------------------------------------
hard=$(ulimit -Hn)
ulimit -n "$hard"
reserve=1000  # the worker's and generator's other descriptors, with room to spare
if [ "$hard" -lt $((connections + reserve)) ]; then
  bench_die "the open-file hard limit ($hard) is below the" \
    "$((connections + reserve)) descriptors $connections connections need; raise it" \
    "(limits.conf, systemd LimitNOFILE) or pass --connections $((hard - reserve))"
fi
# Connections per depth: depth 1 needs three descriptors per client connection in the worker.
depth_connections=("$connections" "$connections")
if [ "$hard" -lt $((3 * connections + reserve)) ]; then
  depth_connections[1]=$(((hard - reserve) / 3))
fi
echo "== limits: open files $hard per process (hard limit), somaxconn" \
  "$(cat /proc/sys/net/core/somaxconn), ephemeral ports" \
  "$(tr '\t' '-' < /proc/sys/net/ipv4/ip_local_port_range)" >&2
if [ "${depth_connections[1]}" -ne "$connections" ]; then
  echo "== depth 1 runs ${depth_connections[1]} connections, not $connections: the open-file" \
    "hard limit ($hard) holds three descriptors per client connection in one worker" \
    "(inbound, upstream, and the nested request's server side)" >&2
fi
read -r port_low port_high < /proc/sys/net/ipv4/ip_local_port_range
if [ $((port_high - port_low)) -lt $((connections + depth_connections[1])) ]; then
  bench_log "warning: $((port_high - port_low)) ephemeral ports for the" \
    "client and upstream connections (net.ipv4.ip_local_port_range)"
fi

server_cpu=1
client_cpu=0
if [ "$(nproc)" -lt 2 ]; then server_cpu=0; fi

bench_workdir

# The listen backlog is capped by net.core.somaxconn: connections beyond it that the server
# has not accepted yet are dropped at the SYN and retried by the client's kernel after 1 s,
# 3 s, ..., so a server that accepts slowly while its thread pool grows would see connect
# timeouts that come from the host's setting, not from its model. Raised for the run where
# this shell may (root in its network namespace), put back at exit; named otherwise.
set_somaxconn() { echo "$1" > /proc/sys/net/core/somaxconn; }
somaxconn=$(cat /proc/sys/net/core/somaxconn)
if [ "$somaxconn" -lt "$connections" ]; then
  if [ -w /proc/sys/net/core/somaxconn ] && set_somaxconn "$connections"; then
    bench_at_exit set_somaxconn "$somaxconn"
    echo "== somaxconn raised from $somaxconn to $connections for this run (put back at exit)" >&2
  else
    echo "== somaxconn $somaxconn caps the listen backlog below $connections connections:" \
      "a server that accepts slowly may see connect timeouts (raise net.core.somaxconn)" >&2
  fi
fi

# sample PID PORT FILE: every 0.2 s, the highest thread count, resident KiB and accept queue
# (connections the kernel completed that the worker on PORT has not accepted yet) so far, into
# FILE. A queue that stays up while the pool stops growing is the tail's cause: those clients'
# first requests wait there, beyond the measured window (bench/README.md, "Where the tails at
# 10,000 connections come from").
sample() {
  local pid="$1" port="$2" file="$3" threads=0 rss=0 queue=0 t r q
  while kill -0 "$pid" 2>/dev/null; do
    t=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    r=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    q=$(ss -Hltn "sport = :$port" 2>/dev/null | awk '{sum += $2} END {print sum + 0}')
    [ "${t:-0}" -gt "$threads" ] && threads=$t
    [ "${r:-0}" -gt "$rss" ] && rss=$r
    [ "${q:-0}" -gt "$queue" ] && queue=$q
    echo "$threads $rss $queue" > "$file"
    sleep 0.2
  done
}

# await_settled PLUGIN PORT: waits (up to 60 s) until the worker on PORT holds none of the
# closed warm-up connections: none in its listen backlog and none open on its side only
# (CLOSE-WAIT); says how long that took when it was not at once.
await_settled() {
  local plugin="$1" port="$2" started=$SECONDS queued left
  while :; do
    queued=$(ss -Hltn "sport = :$port" | awk '{sum += $2} END {print sum + 0}')
    left=$(ss -Htn state close-wait "sport = :$port" | wc -l)
    [ "$queued" -eq 0 ] && [ "$left" -eq 0 ] && break
    if [ $((SECONDS - started)) -ge 60 ]; then
      echo "  $plugin: $queued warm-up connections still in the backlog and $left open after" \
        "60 s; measuring anyway" >&2
      return 0
    fi
    sleep 0.2
  done
  if [ $((SECONDS - started)) -ge 1 ]; then
    echo "  $plugin: waited $((SECONDS - started)) s for the warm-up's connections to close" >&2
  fi
}

# start_worker PLUGIN_PATH PORT [ARGS...]: the worker on the server core (bench_start_worker:
# sets worker_pid, waits for "ready").
start_worker() {
  bench_start_worker "$server_cpu" "$work/worker" "$1" "$2" --threads 1 \
    --stats-interval-ms 60000 "${@:3}"
}

for round in $(seq "$rounds"); do
  for depth in 0 1; do
    conns=${depth_connections[$depth]}
    echo "== round $round of $rounds, depth $depth: $conns connections, ${delay} ms delay, ${duration} s;" \
      "worker on cpu $server_cpu, benchd load on cpu $client_cpu" >&2
    for plugin_path in "$build"/plugins/*.so; do
      plugin=$(basename "$plugin_path" .so)
      if [ -n "$only" ] && [[ ",$only," != *",$plugin,"* ]]; then continue; fi
      port=$(bench_free_port)
      start_worker "$plugin_path" "$port"
      model=$(head -n 1 "$work/worker.out" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["plugin"]["concurrencyModel"])')
      if [ "$model" = "os-threads" ]; then
        # One pool thread per connection, and at depth 1 one more per nested request.
        bench_stop "$worker_pid"
        start_worker "$plugin_path" "$port" --option "max_threads=$((2 * conns + 100))" \
          --option "max_queued=$conns" --option "backlog=$conns"
      fi
      if [ "$warmup" -gt 0 ]; then
        bench_run taskset -c "$client_cpu" "$benchd" load --url "http://127.0.0.1:$port" \
          --approach "$plugin" --workload get-time --connections "$conns" --depth "$depth" \
          --delay "$delay" --duration "$warmup" --threads 1 --quiet > /dev/null
        await_settled "$plugin" "$port"
      fi
      sample "$worker_pid" "$port" "$work/peak" &
      sampler_pid=$!
      bench_track "$sampler_pid"
      before=$(bench_cpu_ticks "$worker_pid")
      bench_run taskset -c "$client_cpu" "$benchd" load --url "http://127.0.0.1:$port" \
        --approach "$plugin" --workload get-time --connections "$conns" --depth "$depth" \
        --delay "$delay" --duration "$duration" --threads 1 --json --quiet > "$work/load.json"
      after=$(bench_cpu_ticks "$worker_pid")
      bench_stop "$sampler_pid"
      read -r peak_threads peak_rss peak_queue < "$work/peak"
      bench_stop "$worker_pid"
      row=$(python3 - "$work/load.json" "$plugin" "$depth" "$((after - before))" \
        "$bench_ticks_per_second" "$peak_threads" "$peak_rss" "$peak_queue" "$duration" <<'PY'
import json, sys
load = json.load(open(sys.argv[1]))
plugin, depth, ticks, hz, threads, rss_kib, queue, duration = sys.argv[2:10]
requests = load["requests"]
answered = max(requests["completed"], 1)
cpu_us = int(ticks) / int(hz) * 1e6 / answered
# The highest per-second p99 inside the test window: what the clients being served saw, apart
# from requests that only got an answer after the window (a connection left in the accept queue).
inside = [s["p99Millis"] for s in load["snapshots"] if s["startSeconds"] < int(duration)]
print(plugin, depth, f'{load["requestsPerSecond"]:.0f}', f'{load["latencyMillis"]["p50"]:.1f}',
      f'{load["latencyMillis"]["p99"]:.1f}', f'{max(inside, default=0):.1f}', requests["errors"],
      threads, f'{int(rss_kib) / 1024:.0f}', queue, f'{cpu_us:.1f}',
      ','.join(f'{name}:{count}' for name, count in load["errors"].items() if count) or '-')
PY
)
      echo "$row" >> "$work/rows"
      echo "  $row" >&2
    done
  done
done

echo
echo "${delay} ms delay, ${duration} s per plugin after ${warmup} s of warm-up, $rounds round(s);" \
  "req/s: the median round (low-high over the rounds); ideal: connections / delay (every" \
  "connection answered once per delay); x best: against the best median of the same depth;" \
  "p99 in: the highest per-second p99 inside the test window (requests answered after it, from" \
  "connections that waited in the accept queue, count in p99 only); acceptq: the most" \
  "connections waiting to be accepted; errors: summed over the rounds"
python3 - "$work/rows" "$delay" "${depth_connections[0]}" "${depth_connections[1]}" <<'PY'
import statistics, sys
rows_file, delay = sys.argv[1], int(sys.argv[2])
connections = {"0": int(sys.argv[3]), "1": int(sys.argv[4])}
runs = {}
for line in open(rows_file):
    name, depth, rps, p50, p99, p99_in, errors, threads, rss, queue, cpu, classes = line.split()
    runs.setdefault((depth, name), []).append(
        dict(rps=int(rps), p50=p50, p99=p99, p99_in=p99_in, errors=int(errors),
             threads=int(threads), rss=int(rss), queue=int(queue), cpu=cpu, classes=classes))
print(f'{"plugin":<16} {"depth":>5} {"conns":>6} {"req/s":>9} {"low-high":>13} {"x best":>7} '
      f'{"x ideal":>7} {"p50 ms":>9} {"p99 ms":>9} {"p99 in":>9} {"errors":>7} {"threads":>8} '
      f'{"RSS MiB":>8} {"acceptq":>8} {"CPU µs/req":>11}')
for depth in ("0", "1"):
    medians = {}
    for (d, name), rounds in runs.items():
        if d == depth:
            ordered = sorted(rounds, key=lambda r: r["rps"])
            medians[name] = (ordered[(len(ordered) - 1) // 2], ordered)
    if not medians:
        continue
    best = max(m["rps"] for m, _ in medians.values())
    ideal = connections[depth] * 1000 / delay
    for name in sorted(medians):
        m, ordered = medians[name]
        spread = f'{ordered[0]["rps"]}-{ordered[-1]["rps"]}'
        print(f'{name:<16} {depth:>5} {connections[depth]:>6} {m["rps"]:>9} {spread:>13} '
              f'{m["rps"] / best:>7.2f} {m["rps"] / ideal:>7.2f} {m["p50"]:>9} {m["p99"]:>9} '
              f'{m["p99_in"]:>9} {sum(r["errors"] for r in ordered):>7} '
              f'{max(r["threads"] for r in ordered):>8} {max(r["rss"] for r in ordered):>8} '
              f'{max(r["queue"] for r in ordered):>8} {m["cpu"]:>11}')
for (depth, name), rounds in sorted(runs.items()):
    classes = [r["classes"] for r in rounds if r["classes"] != "-"]
    if classes:
        print(f'errors of {name} at depth {depth}, by class and round: {" ".join(classes)}')
PY
