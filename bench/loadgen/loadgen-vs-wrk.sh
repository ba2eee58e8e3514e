#!/usr/bin/env bash
# Compares benchd's load generator (`benchd load`) with wrk and h2load (--h1) on the same
# targets, then demonstrates coordinated omission.
#
# Usage: bench/loadgen/loadgen-vs-wrk.sh [-h]
# Environment (defaults in brackets):
#   BUILD_DIR    build tree holding bin/benchd, bin/benchd-worker and plugins/ [build/bench-loadgen];
#                configured (Release) and built when a binary is missing
#   PLUGIN       approach plugin served by benchd-worker [callbacks-asio]
#   CONNECTIONS  keep-alive connections for every tool [64]
#   DURATION     seconds per run [10]
#   RUNS         runs per (target, tool); the median is reported [3]
#   GEN_CPU      CPU the generators are pinned to [0]
#   TARGET_CPU   CPU the targets are pinned to [1]
#   CO_RATE      arrival rate of the coordinated-omission demo [1000]
#   CO_CONNECTIONS  its connection pool [16]
#   CO_DURATION  its seconds [max(DURATION, 10)]
#
# Part 1: for each target (nginx serving a 13-byte static body from a temporary directory, and
# benchd-worker with PLUGIN), each tool runs CONNECTIONS keep-alive connections for DURATION s
# on one thread pinned to GEN_CPU, the target pinned to TARGET_CPU. Printed per run: requests/s
# and the tool's own CPU time per request (user + system of its process, from /usr/bin/time),
# then the medians and the ours/wrk and ours/h2load ratios. Only 127.0.0.1 is loaded.
#
# Part 2: an arrival-rate run (CO_RATE req/s, CO_CONNECTIONS connections, CO_DURATION s) against
# benchd-worker; the worker is stopped (SIGSTOP) for 1 s in the middle, then continued. The
# requests caught in flight by the stop (at most one per connection) must stay under 1 % of all
# for the uncorrected p99 to miss the stall, hence the small pool. Run once
# with --arrivals drop (k6: an arrival that finds no free connection is dropped) and once with
# --arrivals wait (wrk2: it is sent late, timed from its intended time); prints the corrected
# and uncorrected p99 and the dropped arrivals of both. Exits 1 if the wait run's corrected p99
# does not show the stall (>= 500 ms) or its uncorrected p99 does (>= 100 ms).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"
case "${1:-}" in
  "") ;;
  -h | --help) bench_usage 0 ;;
  *) bench_usage_error "takes no arguments (its settings are environment variables)" ;;
esac

BUILD_DIR="${BUILD_DIR:-build/bench-loadgen}"
PLUGIN="${PLUGIN:-callbacks-asio}"
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10}"
RUNS="${RUNS:-3}"
GEN_CPU="${GEN_CPU:-0}"
TARGET_CPU="${TARGET_CPU:-1}"
CO_RATE="${CO_RATE:-1000}"
CO_CONNECTIONS="${CO_CONNECTIONS:-16}"
CO_DURATION="${CO_DURATION:-$((DURATION > 10 ? DURATION : 10))}"

bench_require wrk h2load=nghttp2-client /usr/sbin/nginx=nginx-light /usr/bin/time=time

# shellcheck source=bench/loadgen/generators.sh
source "${bench_root}/bench/loadgen/generators.sh"
loadgen_use_tree

bench_workdir
# nginx's worker process runs as an unprivileged user when started by root: let it read the body.
chmod 755 "${work}"

# ---- targets -------------------------------------------------------------------------------
start_nginx() {
  local port="$1"
  mkdir -p "${work}/nginx/www" "${work}/nginx/logs"
  printf '1795988747790' >"${work}/nginx/www/body.txt"
  cat >"${work}/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid ${work}/nginx/nginx.pid;
error_log ${work}/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${work}/nginx/body;
  proxy_temp_path ${work}/nginx/proxy;
  fastcgi_temp_path ${work}/nginx/fastcgi;
  uwsgi_temp_path ${work}/nginx/uwsgi;
  scgi_temp_path ${work}/nginx/scgi;
  keepalive_requests 1000000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:${port};
    default_type application/json;
    location / { root ${work}/nginx/www; try_files /body.txt =404; }
  }
}
EOF
  taskset -c "${TARGET_CPU}" /usr/sbin/nginx -p "${work}/nginx" -c "${work}/nginx/nginx.conf" \
    2>"${work}/nginx/stderr" &
  bench_track "$!"
  bench_wait_for_port "${port}"
}

start_worker() {
  local port="$1"
  bench_start_worker "${TARGET_CPU}" "${work}/worker-${port}" "${plugin_so}" "${port}" \
    --threads 1 --stats-interval-ms 3600000
}

# ---- part 1 --------------------------------------------------------------------------------
echo "== part 1: ${CONNECTIONS} keep-alive connections, ${DURATION} s, one generator thread on CPU" \
  "${GEN_CPU}, target on CPU ${TARGET_CPU}, median of ${RUNS} runs (tool order rotated per round)"
echo "   host: $(nproc) CPUs, $(uname -r), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)," \
  "$(h2load --version | head -1)"

nginx_port="$(bench_free_port)"
start_nginx "${nginx_port}"
worker_port="$(bench_free_port)"
start_worker "${worker_port}"

nginx_base="http://127.0.0.1:${nginx_port}"
nginx_url="${nginx_base}/nginx/epoch-millis?delayCallDepth=0&delayInMillis=0"
worker_base="http://127.0.0.1:${worker_port}"
worker_url="${worker_base}/${PLUGIN}/epoch-millis?delayCallDepth=0&delayInMillis=0"

targets=("nginx" "worker:${PLUGIN}")
tools=(wrk h2load benchd)
for target in "${targets[@]}"; do
  if [[ "${target}" == nginx ]]; then
    base="${nginx_base}" url="${nginx_url}" approach=nginx
  else
    base="${worker_base}" url="${worker_url}" approach="${PLUGIN}"
  fi
  for run in $(seq 1 "${RUNS}"); do
    for offset in 0 1 2; do
      tool="${tools[$(((run - 1 + offset) % 3))]}"
      case "${tool}" in
        wrk) measure_once "${target}" wrk "${run}" run_wrk "${url}" ;;
        h2load) measure_once "${target}" h2load "${run}" run_h2load "${url}" ;;
        benchd) measure_once "${target}" benchd "${run}" run_benchd "${base}" "${approach}" ;;
      esac
    done
  done
done

echo
printf '  %-22s %10s %10s %10s | %10s %10s %10s | %s\n' "median of ${RUNS}" "wrk req/s" "h2load" \
  "benchd" "wrk us/req" "h2load" "benchd" "benchd/wrk: req/s, us/req | benchd/h2load: req/s, us/req"
for target in "${targets[@]}"; do
  w="$(median "${rates[${target},wrk]}")" h="$(median "${rates[${target},h2load]}")"
  b="$(median "${rates[${target},benchd]}")"
  wc="$(median "${cpus[${target},wrk]}")" hc="$(median "${cpus[${target},h2load]}")"
  bc="$(median "${cpus[${target},benchd]}")"
  printf '  %-22s %10.0f %10.0f %10.0f | %10.2f %10.2f %10.2f | %s\n' "${target}" "${w}" "${h}" "${b}" \
    "${wc}" "${hc}" "${bc}" \
    "$(awk -v w="${w}" -v h="${h}" -v b="${b}" -v wc="${wc}" -v hc="${hc}" -v bc="${bc}" \
      'BEGIN { printf "%.2fx, %.2fx | %.2fx, %.2fx", b / w, bc / wc, b / h, bc / hc }')"
done
echo "  (targets: req/s ratio >= 1.00x, CPU/request ratio <= 1.00x; the target's core is the"
echo "   bottleneck when the generators' CPU stays below one core, see the CPU seconds per run)"

# ---- part 2 --------------------------------------------------------------------------------
echo
stop_at=$((CO_DURATION / 2))
echo "== part 2: coordinated omission: ${CO_RATE} arrivals/s, ${CO_CONNECTIONS} connections," \
  "${CO_DURATION} s against benchd-worker (${PLUGIN}); the worker is stopped for 1 s at ${stop_at} s"
co_result() {
  python3 - "$1" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
print(r["latencyMillis"]["p99"], r["uncorrectedLatencyMillis"]["p99"], r["latencyMillis"]["max"],
      r["requests"]["completed"], r["requests"]["droppedArrivals"], r["requests"]["lateArrivals"])
EOF
}
status=0
for mode in drop wait; do
  (
    sleep "${stop_at}"
    kill -STOP "${worker_pid}"
    sleep 1
    kill -CONT "${worker_pid}"
  ) &
  stopper=$!
  bench_track "${stopper}"
  bench_run taskset -c "${GEN_CPU}" "${benchd}" load --url "${worker_base}" --approach "${PLUGIN}" \
    --workload get-time-arrival-rate --rate "${CO_RATE}" --connections "${CO_CONNECTIONS}" \
    --duration "${CO_DURATION}" \
    --threads 1 --arrivals "${mode}" --quiet --json >"${work}/co-${mode}.json"
  bench_wait "${stopper}"
  read -r corrected uncorrected maximum completed dropped late <<<"$(co_result "${work}/co-${mode}.json")"
  printf '  --arrivals %-4s  corrected p99 %9.2f ms   uncorrected p99 %8.2f ms   max %8.1f ms   completed %6d  dropped %5d  late %5d\n' \
    "${mode}" "${corrected}" "${uncorrected}" "${maximum}" "${completed}" "${dropped}" "${late}"
  if [[ "${mode}" == wait ]]; then
    if awk -v c="${corrected}" -v u="${uncorrected}" 'BEGIN { exit !(c >= 500 && u < 100) }'; then
      echo "  wait: the corrected p99 shows the 1 s stall, the uncorrected p99 hides it: as expected"
    else
      echo "  wait: UNEXPECTED: corrected p99 should be >= 500 ms and uncorrected p99 < 100 ms"
      status=1
    fi
  else
    echo "  drop: the stall's arrivals are dropped (k6 semantics), so neither p99 sees it;" \
      "the dropped count does"
  fi
done
exit "${status}"
