#!/usr/bin/env bash
# Where a plugin's CPU goes per request at many connections: perf samples (software clock, so
# it also works where the machine exposes no hardware counters) of the worker while benchd load
# holds N keep-alive connections with a delay, split by the object the time is spent in
# (kernel, the plugin, libc, Boost.Fiber, ...), each share turned into µs per request with the
# worker's CPU time from /proc. Shows, for example, which part of a model's extra cost per
# request is its own machinery (a scheduler, context switches) and which is shared.
#
# The worker runs on one core, the generator on the other. Warm-up 4 s, then perf records
# 8 s of a 14 s run. Prints per plugin: req/s, CPU µs/request, µs/request per object, and the
# top symbols by share.
#
# With --syscalls it then attaches strace for 3 s (-c -f: every thread, counts only) and prints
# the system calls per answered request, by call; strace slows the worker down, the counts per
# request stay what they are.
#
# Usage: bench/plugins/profile-at-scale.sh [--connections N] [--delay MS] [--preset P]
#                                          [--syscalls] plugin...
set -euo pipefail
cd "$(dirname "$0")/../.."

connections=9800
delay=100
preset=dev
syscalls=0
plugins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections="$2"; shift 2 ;;
    --delay) delay="$2"; shift 2 ;;
    --preset) preset="$2"; shift 2 ;;
    --syscalls) syscalls=1; shift ;;
    -*) echo "usage: $0 [--connections N] [--delay MS] [--preset P] [--syscalls] plugin..." >&2; exit 2 ;;
    *) plugins+=("$1"); shift ;;
  esac
done
if [ ${#plugins[@]} -eq 0 ]; then
  echo "usage: $0 [--connections N] [--delay MS] [--preset P] [--syscalls] plugin..." >&2
  exit 2
fi

scripts/install-deps.sh linux-perf strace >&2
source scripts/ccache-env.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" >/dev/null
build="build/$preset"
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt $((connections + 1000)) ]; then
  echo "profile-at-scale: the open-file hard limit ($(ulimit -n)) is too low for" \
    "$connections connections; pass --connections $(($(ulimit -n) - 1000))" >&2
  exit 1
fi

work=$(mktemp -d)
cleanup() {
  [ -n "${worker_pid:-}" ] && kill "$worker_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# The last requests_served the worker printed in FILE (its stats lines).
served() {
  python3 - "$1" <<'PY'
import json, sys
last = 0
for line in open(sys.argv[1]):
    try:
        event = json.loads(line)
    except ValueError:
        continue
    counters = event.get("plugin_counters") or event.get("counters") or {}
    last = counters.get("requests_served", last)
print(last)
PY
}
hz=$(getconf CLK_TCK)
duration=14
if [ "$syscalls" = 1 ]; then duration=18; fi

for plugin in "${plugins[@]}"; do
  path="$build/plugins/$plugin.so"
  [ -f "$path" ] || { echo "profile-at-scale: no plugin $path" >&2; exit 2; }
  port=$(free_port)
  taskset -c 1 "$build/bin/benchd-worker" --plugin "$path" --port "$port" --threads 1 \
    --stats-interval-ms 200 > "$work/worker.out" 2> "$work/worker.err" &
  worker_pid=$!
  for _ in $(seq 100); do grep -q '"ready"' "$work/worker.out" && break; sleep 0.1; done
  taskset -c 0 "$build/bin/benchd" load --url "http://127.0.0.1:$port" --approach "$plugin" \
    --connections "$connections" --delay "$delay" --duration "$duration" --threads 1 --json --quiet \
    > "$work/load.json" &
  load_pid=$!
  sleep 4
  served_before=$(served "$work/worker.out")
  before=$(cpu_ticks "$worker_pid")
  # The whole core the worker is pinned to, not -p: a thread pool's threads started after perf
  # attached would be missed. The report keeps the worker's samples only.
  perf record -F 499 -a -C 1 -o "$work/perf.data" -- sleep 8 > /dev/null 2>&1
  after=$(cpu_ticks "$worker_pid")
  sleep 0.5
  served_after=$(served "$work/worker.out")
  if [ "$syscalls" = 1 ]; then
    strace_before=$(served "$work/worker.out")
    timeout -s INT 3 strace -c -f -p "$worker_pid" -o "$work/strace.txt" > /dev/null 2>&1 || true
    sleep 0.5
    strace_served=$(($(served "$work/worker.out") - strace_before))
  fi
  wait "$load_pid"
  kill -TERM "$worker_pid"; wait "$worker_pid" || true
  rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requests_per_second"])' \
    "$work/load.json")
  # The worker's own count of answers (nested ones included) while perf recorded.
  cpu_us=$(awk -v t=$((after - before)) -v hz="$hz" -v n=$((served_after - served_before)) \
    'BEGIN {printf "%.1f", (t / hz) * 1e6 / (n > 0 ? n : 1)}')
  printf '\n== %s: %.0f req/s, %s µs CPU per answered request (%d connections, %d ms delay)\n' \
    "$plugin" "$rps" "$cpu_us" "$connections" "$delay"
  echo "   µs/request by object:"
  perf report -i "$work/perf.data" --pid "$worker_pid" --no-children --sort dso -g none \
    2>/dev/null |
    awk -v c="$cpu_us" '/^ +[0-9.]+%/ {sub("%", "", $1); if ($1 >= 0.5)
      printf "   %8.2f  %5.1f%%  %s\n", $1 * c / 100, $1, $2}'
  echo "   top symbols:"
  perf report -i "$work/perf.data" --pid "$worker_pid" --no-children --sort dso,sym -g none \
    2>/dev/null |
    awk '/^ +[0-9.]+%/ && ++shown <= 12 {print "   " substr($0, 1, 110)}'
  if [ "$syscalls" = 1 ]; then
    echo "   system calls per answered request (strace -c -f, 3 s, $strace_served answered):"
    python3 - "$work/strace.txt" "$strace_served" <<'PY'
import sys
path, served = sys.argv[1], max(int(sys.argv[2]), 1)
calls = {}
for line in open(path):
    fields = line.split()
    # "% time  seconds  usecs/call  calls  [errors]  syscall"; the total line names no call.
    if len(fields) >= 5 and fields[0][0].isdigit() and fields[-1] != "total":
        calls[fields[-1]] = int(fields[3])
total = sum(calls.values())
print(f"   {total / served:8.2f}  in all")
for name, count in sorted(calls.items(), key=lambda item: -item[1]):
    if count / served >= 0.01:
        print(f"   {count / served:8.2f}  {name}")
PY
  fi
  worker_pid=""
done
