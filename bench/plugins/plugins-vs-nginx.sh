#!/usr/bin/env bash
# Throughput of every approach plugin against a reference server, measured in the same run.
#
# Each target serves GET /<approach>/epoch-millis?delayCallDepth=0&delayInMillis=0 (a 13-byte
# JSON number) on loopback and is loaded by wrk with keep-alive connections. The reference is
# nginx from Debian answering a body of the same size. The server runs on one core, wrk on the
# other (taskset), so both sides of every run get the same hardware. Prints requests/s and the
# server's CPU time per request (utime+stime from /proc), each as a ratio to nginx.
#
# This machine's speed drifts over minutes, so one run per target in sequence would compare
# targets measured at different speeds: the script runs --rounds rounds (default 3), each round
# every target once in turn, and reports per target the round with the median requests/s (its
# CPU per request with it) and the lowest and highest requests/s of the rounds.
#
# Usage: bench/plugins/plugins-vs-nginx.sh [--duration S] [--connections N] [--rounds N]
#                                          [--variant 'PLUGIN[K=V,...]']...
#                                          [--preset P] [--no-build] [-h]
#   --variant   also measure PLUGIN with these worker options (e.g. 'libmicrohttpd[mode=internal]'),
#               as one more target under that name; repeatable
#   --no-build  run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

duration=10
connections=64
rounds=3
variants=()
while [ $# -gt 0 ]; do
  case "$1" in
    --variant) variants+=("$2"); shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    *) bench_common_option "$@"; shift "$bench_shift" ;;
  esac
done

bench_require wrk nginx=nginx-light
bench_build

server_cpu=1
client_cpu=0
if [ "$(nproc)" -lt 2 ]; then server_cpu=0; fi

bench_workdir

# run_wrk PORT PATH: wrk on the client core, its report in $work/wrk.out.
run_wrk() {
  bench_run taskset -c "$client_cpu" wrk -t1 -c"$connections" -d"${duration}s" --latency \
    "http://127.0.0.1:$1$2" > "$work/wrk.out"
}

results=()
# measure NAME PORT PATH PID...: the server's CPU is the PIDs' summed (nginx's processes).
measure() {
  local name="$1" port="$2" path="$3"; shift 3
  local before=0 after=0 pid
  for pid in "$@"; do before=$((before + $(bench_cpu_ticks "$pid"))); done
  local rps
  run_wrk "$port" "$path"
  rps=$(awk '/Requests\/sec:/ {print $2}' "$work/wrk.out")
  for pid in "$@"; do after=$((after + $(bench_cpu_ticks "$pid"))); done
  local requests
  requests=$(awk -v r="$rps" -v d="$duration" 'BEGIN {printf "%d", r * d}')
  local cpu_us_per_request
  cpu_us_per_request=$(awk -v t=$((after - before)) -v hz="$bench_ticks_per_second" \
    -v n="$requests" \
    'BEGIN {printf "%.2f", (t / hz) * 1e6 / (n > 0 ? n : 1)}')
  results+=("$name $rps $cpu_us_per_request")
  echo "  $name: $rps req/s, $cpu_us_per_request µs CPU/request" >&2
}

for round in $(seq "$rounds"); do
  echo "== round $round of $rounds: nginx (1 worker on cpu $server_cpu), wrk on cpu $client_cpu," \
    "$connections connections, ${duration}s each" >&2
  nginx_port=$(bench_free_port)
  mkdir -p "$work/nginx"
  cat > "$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx;
  proxy_temp_path $work/nginx;
  fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx;
  scgi_temp_path $work/nginx;
  keepalive_requests 1000000;
  server {
    listen 127.0.0.1:$nginx_port;
    location / { default_type application/json; return 200 "1764450000000"; }
  }
}
CONF
  # nginx makes itself a daemon: its master leaves this script's process tree, so it is
  # registered by its pid file, and measured once its worker process runs.
  taskset -c "$server_cpu" nginx -c "$work/nginx.conf" -p "$work" 2>/dev/null
  bench_wait_until 10 test -s "$work/nginx.pid" || bench_die "nginx wrote no pid file"
  nginx_master=$(cat "$work/nginx.pid")
  bench_track "$nginx_master"
  bench_wait_until 10 pgrep -P "$nginx_master" > /dev/null || bench_die "nginx started no worker"
  nginx_pids="$nginx_master $(pgrep -P "$nginx_master" | tr '\n' ' ')"
  # shellcheck disable=SC2086
  measure nginx "$nginx_port" "/" $nginx_pids
  bench_stop "$nginx_master"; rm -f "$work/nginx.pid"

  for plugin_path in "$build"/plugins/*.so; do
    plugin=$(basename "$plugin_path" .so)
    port=$(bench_free_port)
    bench_start_worker "$server_cpu" "$work/worker" "$plugin_path" "$port" --threads 1 \
      --stats-interval-ms 60000
    measure "$plugin" "$port" "/$plugin/epoch-millis?delayCallDepth=0&delayInMillis=0" "$worker_pid"
    bench_stop "$worker_pid"
  done

  for variant in "${variants[@]}"; do
    plugin="${variant%%[*}"
    [ -f "$build/plugins/$plugin.so" ] || bench_die "--variant $variant: no plugin $plugin.so"
    # As benchd run reads a variant: threads=N is the worker's --threads, the rest options.
    threads=1
    options=()
    if [ "$variant" != "$plugin" ]; then
      list="${variant#*[}"; list="${list%]}"
      IFS=',' read -r -a pairs <<< "$list"
      for pair in "${pairs[@]}"; do
        case "$pair" in
          threads=*) threads="${pair#threads=}" ;;
          *) options+=(--option "$pair") ;;
        esac
      done
    fi
    port=$(bench_free_port)
    bench_start_worker "$server_cpu" "$work/worker" "$build/plugins/$plugin.so" "$port" \
      --threads "$threads" --stats-interval-ms 60000 "${options[@]}"
    measure "$variant" "$port" "/$plugin/epoch-millis?delayCallDepth=0&delayInMillis=0" \
      "$worker_pid"
    bench_stop "$worker_pid"
  done
done

echo "$connections connections, ${duration} s per target, $rounds round(s); req/s: the median" \
  "round (low-high over the rounds), its CPU per request with it"
printf '%s\n' "${results[@]}" > "$work/results"
python3 - "$work/results" <<'PY'
import sys
runs = {}
order = []
for line in open(sys.argv[1]):
    name, rps, cpu = line.split()
    if name not in runs:
        order.append(name)
    runs.setdefault(name, []).append((float(rps), float(cpu)))
def median(name):
    ordered = sorted(runs[name])
    return ordered[(len(ordered) - 1) // 2], ordered
(ref_rps, ref_cpu), _ = median("nginx")
print(f'{"target":<30} {"req/s":>10} {"low-high":>15} {"x nginx":>8} {"CPU µs/request":>15} '
      f'{"x nginx":>8}')
for name in order:
    (rps, cpu), ordered = median(name)
    spread = f"{ordered[0][0]:.0f}-{ordered[-1][0]:.0f}"
    print(f"{name:<30} {rps:>10.0f} {spread:>15} {rps / ref_rps:>8.2f} {cpu:>15.2f} "
          f"{cpu / ref_cpu:>8.2f}")
PY
