#!/usr/bin/env bash
# Does benchd's load generator keep up with h2load over HTTP/2, the study this profile answers
# (h2load -c50 -m20 against servers over TLS + h2, in a request-count mode and a duration mode
# with warm-up)? The same approach plugin served under `h2` (TLS, ALPN) and `h2c` (prior
# knowledge), each tool with the same connections and streams per connection.
#
# Usage: bench/loadgen/loadgen-vs-h2load-h2.sh [-h]
# Environment (defaults in brackets):
#   BUILD_DIR    build tree holding bin/benchd, bin/benchd-worker and plugins/ [build/bench-loadgen];
#                configured (Release) and built when a binary is missing
#   PLUGIN       approach plugin served by benchd-worker; one that lists h2 and h2c [coroutines-asio]
#   CONNECTIONS  connections for both tools (h2load -c) [50]
#   STREAMS      concurrent streams per connection (h2load -m, benchd load --streams) [20]
#   REQUESTS     requests of a count-mode run (h2load -n, benchd load --requests) [100000]
#   DURATION     seconds of a duration-mode run (h2load -D) [10]
#   WARMUP       warm-up seconds before a duration-mode run (h2load --warm-up-time) [2]
#   RUNS         runs per (target, mode, tool); the median is reported [3]
#   GEN_CPU      CPU the generators are pinned to [0]
#   TARGET_CPU   CPU the workers are pinned to [1]
#
# Two workers of PLUGIN on TARGET_CPU, one thread each: --profile h2 (a certificate made for
# this run by openssl, EC P-256, in the run's temporary folder) and --profile h2c. Each tool runs
# on one thread pinned to GEN_CPU, in an order alternated per round. Printed per run: requests/s,
# the tool's own CPU time per request (user + system, /usr/bin/time), and p50/p99 latency (h2load
# prints no percentiles: they come from its --log-file, one line per request); then per target
# and mode the medians and the benchd/h2load ratios. The goal: at least h2load's rate at no more
# than its CPU per request. A duration-mode run's CPU includes its warm-up, for both tools alike.
# Neither tool verifies the certificate. Only 127.0.0.1 is loaded.
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
PLUGIN="${PLUGIN:-coroutines-asio}"
CONNECTIONS="${CONNECTIONS:-50}"
STREAMS="${STREAMS:-20}"
REQUESTS="${REQUESTS:-100000}"
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-2}"
RUNS="${RUNS:-3}"
GEN_CPU="${GEN_CPU:-0}"
TARGET_CPU="${TARGET_CPU:-1}"

bench_require h2load=nghttp2-client /usr/bin/time=time openssl

target_width=13
# shellcheck source=bench/loadgen/generators.sh
source "${bench_root}/bench/loadgen/generators.sh"
loadgen_use_tree
bench_workdir
loadgen_certificate
declare -gA p50s p99s

# Latency percentiles in ms, "p50 p99", from h2load's --log-file (tab-separated: start time,
# status, duration in microseconds) or benchd's JSON.
h2load_percentiles() {
  awk -F'\t' '$2 ~ /^2/ { print $3 }' "$1" | sort -g | awk '
    { v[NR] = $1 }
    END { if (NR == 0) { print "0 0"; exit }
          p50 = v[int(NR * 0.50) > 0 ? int(NR * 0.50) : 1]; p99 = v[int(NR * 0.99) > 0 ? int(NR * 0.99) : 1]
          printf "%.3f %.3f\n", p50 / 1000, p99 / 1000 }'
}

# run_h2load_h2 URL MODE: one h2load run; prints "<requests> <seconds> <cpu seconds>".
run_h2load_h2() {
  local url="$1" mode="$2" limit
  if [[ "${mode}" == count ]]; then limit=(-n "${REQUESTS}"); else
    limit=(-D "${DURATION}" --warm-up-time "${WARMUP}"); fi
  timed h2load -t1 -c"${CONNECTIONS}" -m"${STREAMS}" "${limit[@]}" --log-file="${work}/h2load.log" \
    "${url}" >"${work}/h2load.txt"
  read -r p50 p99 < <(h2load_percentiles "${work}/h2load.log")
  awk -v cpu="$(cpu_seconds)" '
    /^finished in/ { seconds = $3; unit = seconds; sub(/[a-z]+,$/, "", seconds); sub(/^[0-9.]+/, "", unit)
                     if (unit == "ms,") seconds /= 1000 }
    /^requests:/ { succeeded = $8; failed = $10 }
    END { if (failed > 0) print "h2load: " failed " requests failed" > "/dev/stderr"
          print succeeded, seconds, cpu }' "${work}/h2load.txt"
}

# run_benchd_h2 BASE MODE: one benchd load run; prints "<requests> <seconds> <cpu seconds>".
run_benchd_h2() {
  local base="$1" mode="$2" limit
  if [[ "${mode}" == count ]]; then limit=(--requests "${REQUESTS}" --duration 600); else
    limit=(--warmup "${WARMUP}"); fi
  run_benchd "${base}" "${PLUGIN}" --http2 --streams "${STREAMS}" "${limit[@]}"
  read -r p50 p99 < <(python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["latencyMillis"]; print("%.3f %.3f" % (l["p50"], l["p99"]))' "${work}/benchd.json")
}

# measure_h2 TARGET MODE TOOL RUN COMMAND...: measure_once, plus the run's percentiles.
measure_h2() {
  local target="$1" mode="$2" tool="$3" run="$4"
  shift 4
  p50=0 p99=0
  measure_once "${target}/${mode}" "${tool}" "${run}" "$@"
  # measure_once ran COMMAND in this shell, so p50 and p99 are the run's.
  echo "    latency p50 ${p50} ms, p99 ${p99} ms"
  p50s["${target}/${mode},${tool}"]+="${p50} "
  p99s["${target}/${mode},${tool}"]+="${p99} "
}

echo "== ${PLUGIN} over HTTP/2: ${CONNECTIONS} connections x ${STREAMS} streams, count mode" \
  "${REQUESTS} requests, duration mode ${DURATION} s after ${WARMUP} s warm-up; one generator" \
  "thread on CPU ${GEN_CPU}, the worker (one thread) on CPU ${TARGET_CPU}; median of ${RUNS} runs"
echo "   host: $(nproc) CPUs, $(uname -r), $(h2load --version | head -1), $(openssl version | cut -d' ' -f1-2)"

h2_port="$(bench_free_port)"
bench_start_worker "${TARGET_CPU}" "${work}/worker-h2" "${plugin_so}" "${h2_port}" \
  --threads 1 --stats-interval-ms 3600000 --profile h2 --tls-cert "${work}/cert.pem" \
  --tls-key "${work}/key.pem"
h2c_port="$(bench_free_port)"
bench_start_worker "${TARGET_CPU}" "${work}/worker-h2c" "${plugin_so}" "${h2c_port}" \
  --threads 1 --stats-interval-ms 3600000 --profile h2c

targets=(h2 h2c)
modes=(count duration)
tools=(h2load benchd)
for target in "${targets[@]}"; do
  if [[ "${target}" == h2 ]]; then
    base="https://127.0.0.1:${h2_port}"
  else
    base="http://127.0.0.1:${h2c_port}"
  fi
  url="${base}/${PLUGIN}/epoch-millis?delayCallDepth=0&delayInMillis=0"
  for mode in "${modes[@]}"; do
    for run in $(seq 1 "${RUNS}"); do
      for offset in 0 1; do
        tool="${tools[$(((run - 1 + offset) % 2))]}"
        case "${tool}" in
          h2load) measure_h2 "${target}" "${mode}" h2load "${run}" run_h2load_h2 "${url}" "${mode}" ;;
          benchd) measure_h2 "${target}" "${mode}" benchd "${run}" run_benchd_h2 "${base}" "${mode}" ;;
        esac
      done
    done
  done
done

echo
printf '  %-15s %10s %10s | %10s %10s | %9s %9s | %9s %9s | %s\n' "median" "h2load r/s" "benchd" \
  "h2load us" "benchd" "h2l p50" "benchd" "h2l p99" "benchd" "benchd/h2load: req/s, us CPU/req"
for target in "${targets[@]}"; do
  for mode in "${modes[@]}"; do
    key="${target}/${mode}"
    h="$(median "${rates[${key},h2load]}")" b="$(median "${rates[${key},benchd]}")"
    hc="$(median "${cpus[${key},h2load]}")" bc="$(median "${cpus[${key},benchd]}")"
    printf '  %-15s %10.0f %10.0f | %10.2f %10.2f | %9.3f %9.3f | %9.3f %9.3f | %s\n' "${key}" \
      "${h}" "${b}" "${hc}" "${bc}" "$(median "${p50s[${key},h2load]}")" \
      "$(median "${p50s[${key},benchd]}")" "$(median "${p99s[${key},h2load]}")" \
      "$(median "${p99s[${key},benchd]}")" \
      "$(awk -v h="${h}" -v b="${b}" -v hc="${hc}" -v bc="${bc}" \
        'BEGIN { printf "%.2fx, %.2fx", b / h, bc / hc }')"
  done
done
echo "  (us = the generator's own CPU per request; a run whose CPU seconds reach its length was"
echo "   limited by its generator's core, and then req/s shows the generator, not the worker)"
