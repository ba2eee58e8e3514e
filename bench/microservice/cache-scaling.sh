#!/usr/bin/env bash
# Measures how MovieService cache hits scale from 1 to 2 threads.
#
# Usage: bench/microservice/cache-scaling.sh [-h] [BENCHMARK_BINARY [EXTRA_BENCHMARK_ARGS...]]
#   BENCHMARK_BINARY defaults to build/dev/bench/microservice/benchd_cache_hit_benchmark (of
#   the checkout); a path given is taken from the current folder.
#
# Prints the median items/s of BM_MoviesByDirectorCacheHit on 1 and 2 threads (3 repetitions)
# and their ratio, then the same ratio for BM_ThreadPrivateBaseline: work of the same shape on
# thread-private data only, i.e. the best scaling this machine allows at the moment. Exits 1
# if the binary is missing or its output cannot be read.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

case "${1:-}" in -h | --help) bench_usage 0 ;; esac
binary="${1:-${bench_root}/build/dev/bench/microservice/benchd_cache_hit_benchmark}"
shift || true

if [[ ! -x "${binary}" ]]; then
  bench_die "benchmark binary not found or not executable: ${binary}"
fi

csv="$("${binary}" \
  --benchmark_filter='^(BM_MoviesByDirectorCacheHit|BM_ThreadPrivateBaseline)/' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=csv "$@" 2>/dev/null)"

# items_per_second (CSV column 7) of the median row of benchmark $1 with $2 threads.
median_rate() {
  awk -F, -v name="\"$1/real_time/threads:$2_median\"" '$1 == name { print $7 }' <<<"${csv}"
}

report() {
  local benchmark="$1" label="$2" one two
  one="$(median_rate "${benchmark}" 1)"
  two="$(median_rate "${benchmark}" 2)"
  if [[ -z "${one}" || -z "${two}" ]]; then
    bench_die "no ${benchmark} results for 1 and 2 threads in the output"
  fi
  awk -v label="${label}" -v one="${one}" -v two="${two}" 'BEGIN {
    printf "%s, 1 thread:  %12.0f items/s\n", label, one
    printf "%s, 2 threads: %12.0f items/s\n", label, two
    printf "%s, ratio 2/1: %12.2f\n", label, two / one
  }'
}

report BM_MoviesByDirectorCacheHit "cache hit"
report BM_ThreadPrivateBaseline "thread-private baseline"
