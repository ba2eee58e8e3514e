#!/usr/bin/env bash
# Does the winners grid call winners where there is only noise? An A/A check runs one plugin
# against a byte-identical copy of itself (benchd run --aa: the same plugin under a second
# name), so every winner its grid names is a false winner. The script runs it with --repeat N
# (default 5) on a scenario file (default scenarios-quick.csv), twice: with the server and the
# load generator sharing the machine's CPUs (--cpus shared), and split (--cpus split, the
# default: on two CPUs the server on 1, the generator on 0).
# For each it prints the false-winner rate under the significance rule and, from the very same
# runs, under the original's rule (any lead wins), and the median lead between the two copies
# (the noise). Then it runs a known difference, threads-poco against callbacks-asio (split
# CPUs), and prints how many cells the significance rule still calls.
#
# Rates are counts of cells; the runs of both sides of a check are interleaved in rounds of a
# shuffled order, so drift of this shared machine hits both copies alike. One run of the quick
# file per approach takes about 2.5 minutes: the default (5 repeats, 2 approaches, 3 runs)
# takes about 75 minutes.
#
# Usage: bench/results/aa-check.sh [--repeat N] [--approach A] [--file F] [--preset P]
#                                  [--only aa-shared,aa-split,known] [-w S] [-t S] [--out DIR]
#                                  [--no-build] [-h]
#   --no-build  run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=5
approach=callbacks-asio
file=scenarios-quick.csv
only=aa-shared,aa-split,known
out=""
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    *) bench_results_option "$@"; shift "$bench_shift" ;;
  esac
done

bench_build
bench_results_out  # out, stem
bench_log "$file, --repeat $repeat, results in $out"

report_aa() {  # LABEL FOLDER
  local significant original noise
  significant=$(bench_wins "$2" --winners significant)
  original=$(bench_wins "$2" --winners original)
  noise=$("$benchd" winners "$2" --winners original | sed -n 's/^median lead of the top two: //p')
  # shellcheck disable=SC2086  # "WINS CONTESTS", split into bench_cells' two arguments
  echo "$1: false winners, significance rule: $(bench_cells $significant 1)"
  # shellcheck disable=SC2086
  echo "$1: false winners, original rule:     $(bench_cells $original 1)"
  echo "$1: median lead between the copies:   $noise"
}

run() {  # NAME ARGS...
  local name="$1"
  shift
  bench_log "running $name ($(date -u +%H:%M:%S) UTC)"
  bench_run "$benchd" run "$file" --repeat "$repeat" --quiet -o "$out/$name" "${overrides[@]}" \
    "$@" >&2
}

IFS=, read -r -a parts <<< "$only"
for part in "${parts[@]}"; do
  case "$part" in
    aa-shared)
      run aa-shared --aa "$approach" --cpus shared
      report_aa "A/A $approach, CPUs shared" "$out/aa-shared/$stem" ;;
    aa-split)
      run aa-split --aa "$approach" --cpus split
      report_aa "A/A $approach, CPUs split" "$out/aa-split/$stem" ;;
    known)
      run known -a threads-poco,callbacks-asio --cpus split
      echo "known difference (threads-poco vs callbacks-asio, CPUs split):"
      "$benchd" winners "$out/known/$stem" --winners significant | sed 's/^/  /' ;;
    *) bench_usage_error "unknown part '$part' in --only" ;;
  esac
done
