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
# With --syscalls it then counts the system calls made on the worker's core for 3 s (perf stat
# on the kernel's syscall tracepoints, little overhead; the worker is all that runs there) and
# prints them per answered request, by call; the window and the worker's count of answers agree
# to within its 0.2 s stats interval.
#
# Usage: bench/plugins/profile-at-scale.sh [--connections N] [--delay MS] [--preset P]
#                                          [--syscalls] [--no-build] [-h] plugin...
#   --no-build  run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

connections=9800
delay=100
syscalls=0
plugins=()
while [ $# -gt 0 ]; do
  case "$1" in
    --connections) connections="$2"; shift 2 ;;
    --delay) delay="$2"; shift 2 ;;
    --syscalls) syscalls=1; shift ;;
    -*) bench_common_option "$@"; shift "$bench_shift" ;;
    *) plugins+=("$1"); shift ;;
  esac
done
[ ${#plugins[@]} -gt 0 ] || bench_usage_error "name at least one plugin"

bench_require perf=linux-perf
bench_build
ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt $((connections + 1000)) ]; then
  bench_die "the open-file hard limit ($(ulimit -n)) is too low for" \
    "$connections connections; pass --connections $(($(ulimit -n) - 1000))"
fi

bench_workdir
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
duration=14
if [ "$syscalls" = 1 ]; then duration=24; fi

for plugin in "${plugins[@]}"; do
  path="$build/plugins/$plugin.so"
  [ -f "$path" ] || bench_usage_error "no plugin $path"
  port=$(bench_free_port)
  bench_start_worker 1 "$work/worker" "$path" "$port" --threads 1 --stats-interval-ms 200
  taskset -c 0 "$benchd" load --url "http://127.0.0.1:$port" --approach "$plugin" \
    --connections "$connections" --delay "$delay" --duration "$duration" --threads 1 --json --quiet \
    > "$work/load.json" &
  load_pid=$!
  bench_track "$load_pid"
  sleep 4
  served_before=$(served "$work/worker.out")
  before=$(bench_cpu_ticks "$worker_pid")
  # The whole core the worker is pinned to, not -p: a thread pool's threads started after perf
  # attached would be missed. The report keeps the worker's samples only.
  bench_run perf record -F 499 -a -C 1 -o "$work/perf.data" -- sleep 8 > /dev/null 2>&1
  after=$(bench_cpu_ticks "$worker_pid")
  sleep 0.5
  served_after=$(served "$work/worker.out")
  if [ "$syscalls" = 1 ]; then
    # All calls, and by name the ones a server makes per request; opening every one of the
    # kernel's syscall tracepoints takes seconds.
    events=raw_syscalls:sys_enter
    for call in read write readv writev recvfrom sendto recvmsg sendmsg poll ppoll select \
      epoll_wait epoll_pwait epoll_ctl epoll_create epoll_create1 close setsockopt getsockopt \
      getpeername getsockname shutdown accept accept4 futex clock_gettime clock_nanosleep \
      sched_yield mmap munmap mprotect madvise brk timerfd_settime eventfd2 clone clone3; do
      events+=",syscalls:sys_enter_$call"
    done
    # The counted window is the 3 s sleep of the command perf runs; the rate of answers in it
    # comes from the worker's stats lines (count and timestamp) seen at its start and end.
    bench_run perf stat -x, -e "$events" -a -C 1 -o "$work/syscalls.csv" -- \
      python3 - "$work/worker.out" "$work/answer_rate" > /dev/null 2>&1 <<'PY' || true
import json, sys, time
def last_stats(path):
    found = None
    for line in open(path):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        counters = event.get("plugin_counters") or event.get("counters") or {}
        if "requests_served" in counters and "epochMillis" in event:
            found = (counters["requests_served"], event["epochMillis"])
    return found
start = last_stats(sys.argv[1])
time.sleep(3)
end = last_stats(sys.argv[1])
rate = (end[0] - start[0]) / ((end[1] - start[1]) / 1000) if start and end and end[1] > start[1] else 0
open(sys.argv[2], "w").write(f"{rate:.0f}\n")
PY
    answer_rate=$(cat "$work/answer_rate" 2>/dev/null || echo 0)
    if [ "${answer_rate:-0}" -le 0 ]; then
      bench_log "$plugin answered nothing while the system calls were counted"
    fi
  fi
  bench_wait "$load_pid"
  bench_stop "$worker_pid"
  rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["requestsPerSecond"])' \
    "$work/load.json")
  # The worker's own count of answers (nested ones included) while perf recorded.
  cpu_us=$(awk -v t=$((after - before)) -v hz="$bench_ticks_per_second" \
    -v n=$((served_after - served_before)) \
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
    echo "   system calls per answered request (perf stat, 3 s at $answer_rate answers/s):"
    python3 - "$work/syscalls.csv" "$answer_rate" <<'PY'
import sys
path, served = sys.argv[1], max(int(sys.argv[2]), 1) * 3
calls = {}
total = 0
for line in open(path):
    # "count,unit,event,..."; events that did not fire say "<not counted>".
    fields = line.strip().split(",")
    if len(fields) < 3 or not fields[0].isdigit():
        continue
    if fields[2] == "raw_syscalls:sys_enter":
        total = int(fields[0])
    elif fields[2].startswith("syscalls:sys_enter_"):
        calls[fields[2][len("syscalls:sys_enter_"):]] = int(fields[0])
print(f"   {total / served:8.2f}  in all (on the worker's core)")
for name, count in sorted(calls.items(), key=lambda item: -item[1]):
    if count / served >= 0.01:
        print(f"   {count / served:8.2f}  {name}")
PY
  fi
done
