#!/usr/bin/env bash
# The h2load study's question in benchd's terms: which stack, which thread knobs, under which
# memory? The study loaded four Java servers with `h2load -n400000 -c50 -m20` over TLS + h2 (and
# -D 120 after a 5 s warm-up), each at its defaults and with its thread knobs swept, every JVM
# capped at 512 MiB. This runs scenarios/scenarios-h2-knobs.csv (that matrix on two cores:
# 1,000,000 and 50,000 requests, and 30 s, without and with a 100 ms wait) over every approach
# at its defaults and with its model's thread knob turned, in one `benchd run` with shuffled
# rounds, each worker under --memory-cap, then prints the winners grid.
#
# The variants (docs/run.md#approach-variants):
#   callbacks-asio, coroutines-asio, fibers-asio   the worker's threads (event loops): the
#                                                  machine's hardware threads (default) and
#                                                  [threads=4], more loops than the worker's
#                                                  CPUs
#   fibers-asio[fiber_stack_kib=32]                a smaller stack per fiber
#   h2o, h2o[threads=4]                            the h2o stack's event loops, as the Asio ones
#   threads-asio[memory_cap=16M]                   the study's "OOM - Did not complete": a thread
#                                                  per stream under a cap below what 1,000
#                                                  streams take (threads-asio peaked at 38 MiB
#                                                  uncapped in the no-wait duration row)
#   threads-asio, threads-poco                     max_threads 5000 (default), 100 and 50: the
#                                                  study's Jetty and Tomcat max threads
# An approach whose plugin does not serve h2 is skipped with its reason in results.md, as
# benchd run skips any row a plugin cannot serve.
#
# Output in --out DIR (default a new /tmp/benchd-h2-knobs.XXXXXX, kept): benchd run's results
# folder (results.md with the rows, the per-host samples and any "OOM — did not complete"),
# grid.md (`benchd winners --grid`) and knobs.md (the command, the commit, the machine).
#
# Usage: bench/study/h2-knobs.sh [--repeat N] [--memory-cap SIZE] [--out DIR] [--preset P]
#                                [--no-build] [-h]
#   --repeat N         shuffled rounds of every (row, approach) (default 3: about 40 min here)
#   --memory-cap SIZE  every worker's cap, as the study's -Xmx (default 512M; "none" for none)
#   --no-build         run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=3
memory_cap=512M
out=""
file=scenarios/scenarios-h2-knobs.csv
while [ $# -gt 0 ]; do
  case "$1" in
    --memory-cap)
      [ $# -ge 2 ] || bench_usage_error "--memory-cap needs a value"
      memory_cap=$2
      shift 2 ;;
    *)
      bench_results_option "$@"
      shift "$bench_shift" ;;
  esac
done

approaches=(
  callbacks-asio 'callbacks-asio[threads=4]'
  coroutines-asio 'coroutines-asio[threads=4]'
  fibers-asio 'fibers-asio[threads=4]' 'fibers-asio[fiber_stack_kib=32]'
  h2o 'h2o[threads=4]'
  threads-asio 'threads-asio[max_threads=100]' 'threads-asio[max_threads=50]'
  'threads-asio[memory_cap=16M]'
  threads-poco 'threads-poco[max_threads=100]' 'threads-poco[max_threads=50]'
)
cap_arguments=()
[ "$memory_cap" = none ] || cap_arguments=(--memory-cap "$memory_cap")

bench_build
bench_results_out  # out, stem
list=$(IFS=,; echo "${approaches[*]}")
bench_log "$file over ${#approaches[@]} approaches, --repeat $repeat, memory cap $memory_cap," \
  "results in $out"
started=$(date +%s)
status=0
bench_run "$benchd" run "$file" --repeat "$repeat" -a "$list" "${cap_arguments[@]}" \
  -o "$out" >&2 || status=$?
# 3: completed with some results failed (an OOM, a skipped row); results.md names each.
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || bench_die "benchd run ended with $status"
seconds=$(($(date +%s) - started))

"$benchd" winners "$out/$stem" --grid > "$out/grid.md"
{
  echo "# How this matrix was made"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bench/study/h2-knobs.sh --repeat $repeat --memory-cap $memory_cap\` |"
  echo "| commit | $(git rev-parse HEAD)$(git diff --quiet HEAD -- . || echo ' (with local changes)') |"
  echo "| approaches | ${approaches[*]} |"
  echo "| machine | $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -r) |"
  echo "| wall time | $((seconds / 60)) min $((seconds % 60)) s |"
} > "$out/knobs.md"
echo "h2-knobs: $out ($((seconds / 60)) min $((seconds % 60)) s)"
cat "$out/grid.md"
