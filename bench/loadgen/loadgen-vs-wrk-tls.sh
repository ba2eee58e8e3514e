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

target_width=8
# shellcheck source=bench/loadgen/generators.sh
source "${bench_root}/bench/loadgen/generators.sh"
loadgen_use_tree
bench_workdir
loadgen_certificate

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
        benchd) measure_once "${target}" benchd "${run}" run_benchd "${base}" "${PLUGIN}" ;;
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
