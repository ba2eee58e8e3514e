#!/usr/bin/env bash
# What HTTP/1.1 over TLS costs, and whether benchd's load generator keeps up with wrk and h2load
# (--h1) when it speaks TLS: the same approach plugin served in clear and under the `tls` profile.
#
# Usage: bench/loadgen/loadgen-vs-wrk-tls.sh [-h]
# Environment (defaults in brackets):
#   BUILD_DIR    build tree holding bin/benchd, bin/benchd-worker and plugins/ [build/bench-loadgen];
#                configured (Release) and built when a binary is missing
#   PLUGIN       approach plugin served by benchd-worker; one that lists tls [coroutines-asio]
#   CONNECTIONS  keep-alive connections for every tool [64]
#   DURATION     seconds per run [10]
#   RUNS         runs per (target, tool); the median is reported [3]
#   GEN_CPU      CPU the generators are pinned to [0]
#   TARGET_CPU   CPU the workers are pinned to [1]
#
# Two workers of PLUGIN on TARGET_CPU, one thread each: one plain, one with --profile tls and a
# certificate made for this run by openssl (EC P-256, in the run's temporary folder). Each tool
# runs CONNECTIONS keep-alive connections for DURATION s on one thread pinned to GEN_CPU, in an
# order rotated per round. Printed per run: requests/s and the tool's own CPU time per request
# (user + system, /usr/bin/time); then per target the medians with the benchd/wrk and
# benchd/h2load ratios, and per tool the tls/plain ratios: what TLS costs the worker shows in the
# req/s when the worker's core is the bottleneck, what it costs the generator in its CPU per
# request. Every connection is kept alive, so the handshakes are a start-up cost; the figures are
# mostly record encryption. Only 127.0.0.1 is loaded.
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
CONNECTIONS="${CONNECTIONS:-64}"
DURATION="${DURATION:-10}"
RUNS="${RUNS:-3}"
GEN_CPU="${GEN_CPU:-0}"
TARGET_CPU="${TARGET_CPU:-1}"

bench_require wrk h2load=nghttp2-client /usr/bin/time=time openssl

plugin_so="${BUILD_DIR}/plugins/${PLUGIN}.so"
if [[ ! -x "${BUILD_DIR}/bin/benchd" || ! -x "${BUILD_DIR}/bin/benchd-worker" ||
  ! -f "${plugin_so}" ]]; then
  bench_log "building benchd, benchd-worker and ${PLUGIN} in ${BUILD_DIR}"
  scripts/install-deps.sh >&2
  bench_cmake -S . -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBENCHD_BUILD_TESTS=OFF \
    -DBENCHD_BUILD_BENCHMARKS=OFF
  bench_cmake --build "${BUILD_DIR}" --target benchd benchd-worker "${PLUGIN//-/_}"
fi
bench_use_tree "${BUILD_DIR}"  # benchd, worker

bench_workdir
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench" \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "${work}/key.pem" -out "${work}/cert.pem" \
  2>"${work}/openssl.err" || bench_die "openssl could not make a certificate: $(cat "${work}/openssl.err")"

# ---- tools ---------------------------------------------------------------------------------
# Each run_* prints "<requests> <seconds> <cpu seconds>" for one run of its tool.
timed() {
  bench_run /usr/bin/time -f '%U %S' -o "${work}/time" taskset -c "${GEN_CPU}" "$@"
}

cpu_seconds() {
  awk '{ print $1 + $2 }' "${work}/time"
}

run_benchd() {
  local base="$1"
  timed "${benchd}" load --url "${base}" --approach "${PLUGIN}" --connections "${CONNECTIONS}" \
    --duration "${DURATION}" --threads 1 --quiet --json >"${work}/benchd.json"
  python3 - "${work}/benchd.json" "$(cpu_seconds)" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
errors = result["requests"]["errors"]
if errors:
    print(f"benchd load reported {errors} errors", file=sys.stderr)
print(result["requests"]["completed"], result["elapsedSeconds"], sys.argv[2])
EOF
}

run_wrk() {
  local url="$1"
  timed wrk -t1 -c"${CONNECTIONS}" -d"${DURATION}s" "${url}" >"${work}/wrk.txt"
  awk -v cpu="$(cpu_seconds)" '
    / requests in / { requests = $1; seconds = $4; sub(/s,?$/, "", seconds) }
    /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }
    END { print requests, seconds, cpu }' "${work}/wrk.txt"
}

run_h2load() {
  local url="$1"
  timed h2load --h1 -t1 -c"${CONNECTIONS}" -D "${DURATION}" "${url}" >"${work}/h2load.txt"
  awk -v cpu="$(cpu_seconds)" '
    /^finished in/ { seconds = $3; sub(/s,$/, "", seconds) }
    /^requests:/ { succeeded = $8 }
    END { print succeeded, seconds, cpu }' "${work}/h2load.txt"
}

declare -A rates cpus

# Runs one tool once on one target and records its req/s and CPU us/request.
measure_once() {
  local target="$1" tool="$2" run="$3"
  shift 3
  local requests seconds cpu rate micros
  # Not in $(...): the run must be this shell's, so that a signal stops it (bench_run).
  "$@" >"${work}/run"
  read -r requests seconds cpu <"${work}/run"
  rate="$(awk -v r="${requests}" -v s="${seconds}" 'BEGIN { printf "%.0f", r / s }')"
  micros="$(awk -v c="${cpu}" -v r="${requests}" 'BEGIN { printf "%.2f", (r > 0 ? c * 1e6 / r : 0) }')"
  printf '  %-8s %-8s run %d: %9s req/s  %7s us CPU/request  (%s requests, %.1f s CPU)\n' \
    "${target}" "${tool}" "${run}" "${rate}" "${micros}" "${requests}" "${cpu}"
  rates["${target},${tool}"]+="${rate} "
  cpus["${target},${tool}"]+="${micros} "
  sleep 1
}

median() {
  tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

echo "== ${PLUGIN} in clear and over TLS: ${CONNECTIONS} keep-alive connections, ${DURATION} s, one" \
  "generator thread on CPU ${GEN_CPU}, the worker (one thread) on CPU ${TARGET_CPU}, median of ${RUNS}" \
  "runs (tool order rotated per round)"
echo "   host: $(nproc) CPUs, $(uname -r), $(wrk --version 2>&1 | head -1 | cut -d' ' -f1-2)," \
  "$(h2load --version | head -1), $(openssl version | cut -d' ' -f1-2)"

plain_port="$(bench_free_port)"
bench_start_worker "${TARGET_CPU}" "${work}/worker-plain" "${plugin_so}" "${plain_port}" \
  --threads 1 --stats-interval-ms 3600000
tls_port="$(bench_free_port)"
bench_start_worker "${TARGET_CPU}" "${work}/worker-tls" "${plugin_so}" "${tls_port}" \
  --threads 1 --stats-interval-ms 3600000 --profile tls --tls-cert "${work}/cert.pem" \
  --tls-key "${work}/key.pem"

targets=(plain tls)
tools=(wrk h2load benchd)
for target in "${targets[@]}"; do
  if [[ "${target}" == plain ]]; then
    base="http://127.0.0.1:${plain_port}"
  else
    base="https://127.0.0.1:${tls_port}"
  fi
  url="${base}/${PLUGIN}/epoch-millis?delayCallDepth=0&delayInMillis=0"
  for run in $(seq 1 "${RUNS}"); do
    for offset in 0 1 2; do
      tool="${tools[$(((run - 1 + offset) % 3))]}"
      case "${tool}" in
        wrk) measure_once "${target}" wrk "${run}" run_wrk "${url}" ;;
        h2load) measure_once "${target}" h2load "${run}" run_h2load "${url}" ;;
        benchd) measure_once "${target}" benchd "${run}" run_benchd "${base}" ;;
      esac
    done
  done
done

echo
printf '  %-10s %10s %10s %10s | %10s %10s %10s | %s\n' "median" "wrk req/s" "h2load" "benchd" \
  "wrk us/req" "h2load" "benchd" "benchd/wrk: req/s, us/req | benchd/h2load: req/s, us/req"
for target in "${targets[@]}"; do
  w="$(median "${rates[${target},wrk]}")" h="$(median "${rates[${target},h2load]}")"
  b="$(median "${rates[${target},benchd]}")"
  wc="$(median "${cpus[${target},wrk]}")" hc="$(median "${cpus[${target},h2load]}")"
  bc="$(median "${cpus[${target},benchd]}")"
  printf '  %-10s %10.0f %10.0f %10.0f | %10.2f %10.2f %10.2f | %s\n' "${target}" "${w}" "${h}" \
    "${b}" "${wc}" "${hc}" "${bc}" \
    "$(awk -v w="${w}" -v h="${h}" -v b="${b}" -v wc="${wc}" -v hc="${hc}" -v bc="${bc}" \
      'BEGIN { printf "%.2fx, %.2fx | %.2fx, %.2fx", b / w, bc / wc, b / h, bc / hc }')"
done
echo
printf '  %-10s %14s %18s\n' "tls/plain" "req/s" "us CPU/request"
for tool in "${tools[@]}"; do
  printf '  %-10s %13sx %17sx\n' "${tool}" \
    "$(awk -v t="$(median "${rates[tls,${tool}]}")" -v p="$(median "${rates[plain,${tool}]}")" \
      'BEGIN { printf "%.2f", t / p }')" \
    "$(awk -v t="$(median "${cpus[tls,${tool}]}")" -v p="$(median "${cpus[plain,${tool}]}")" \
      'BEGIN { printf "%.2f", t / p }')"
done
echo "  (us CPU/request is the generator's own cost; req/s is what the worker's core holds only"
echo "   while the generator stays below one core: a run whose CPU seconds reach its duration"
echo "   was limited by its generator, and then req/s shows what TLS costs the generator)"
