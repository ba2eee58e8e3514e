#!/usr/bin/env bash
# What each client of the nested call costs: one benchd run of the C++ clients file
# (scenarios/scenarios-cpp-clients.csv: client-beast, client-curl, client-poco and
# client-httplib at call depths 1, 2 and 5, the smooth spike, 1,500 connections) against every
# approach plugin, each pair a plugin implements (the others are skipped), then cost-table.py
# over the run's store: per (plugin, client) the CPU and context switches one level of a chain
# adds, the threads, upstream connections and descriptors at depth 5, the upstream connections
# open at the end and p99 per depth, each the median of the rounds.
#
# Usage: bench/clients/run.sh [--repeat N] [--approach A,B,...] [--file F] [--preset P]
#                             [-w S] [-t S] [--out DIR] [--no-build] [--report DIR] [-h]
#   --report DIR  run nothing: print the table of an earlier run of this script (its --out DIR)
# Defaults: --repeat 3, every approach plugin, the file's 180 s per row (-t 60 for a shorter
# look: a round of 39 runs, 13 pairs at 3 depths, then takes about 41 min on the 2-core
# development machine; at -t 20 it took 829 s).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=3
approach=callbacks-asio,coroutines-asio,fibers-asio,threads-asio,threads-poco
file=scenarios/scenarios-cpp-clients.csv
out=""
report=""
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --report)
      [ $# -ge 2 ] || bench_usage_error "$1 needs a value"
      report=$2
      bench_shift=2 ;;
    *) bench_results_option "$@" ;;
  esac
  shift "$bench_shift"
done
if [ -n "$report" ]; then
  out=$report
  [ -f "$out/clients/benchd.sqlite" ] || bench_die "--report $report: no $out/clients/benchd.sqlite"
  echo "clients: $file, the rounds an earlier run finished ($report)"
else
  bench_build
  bench_results_out  # out, stem
  bench_log "$file, $approach, --repeat $repeat, results in $out"
  started=$(date +%s)
  bench_run "$benchd" run "$file" --quiet "${overrides[@]}" -a "$approach" \
    --repeat "$repeat" -o "$out/clients" >&2 || {
    status=$?
    [ "$status" -eq 3 ] || exit "$status"
    bench_log "some results failed; see their results.md"
  }
  echo "clients: $file, $repeat rounds in $(($(date +%s) - started)) s"
fi
python3 bench/clients/cost-table.py "$out/clients/benchd.sqlite"
