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
set -euo pipefail
cd "$(dirname "$0")/../.."

repeat=5
approach=callbacks-asio
file=scenarios-quick.csv
preset=dev
only=aa-shared,aa-split,known
out=""
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat) repeat="$2"; shift 2 ;;
    --approach) approach="$2"; shift 2 ;;
    --file) file="$2"; shift 2 ;;
    --preset) preset="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -w|-t) overrides+=("$1" "$2"); shift 2 ;;
    *) echo "usage: $0 [--repeat N] [--approach A] [--file F] [--preset P]" \
         "[--only aa-shared,aa-split,known] [-w S] [-t S] [--out DIR]" >&2
       exit 2 ;;
  esac
done

scripts/install-deps.sh >&2
source scripts/ccache-env.sh
[ -f "build/$preset/CMakeCache.txt" ] || cmake --preset "$preset" >&2
cmake --build "build/$preset" >&2
benchd="build/$preset/bin/benchd"
[ -n "$out" ] || out=$(mktemp -d /tmp/benchd-aa-check.XXXXXX)
stem=$(basename "$file" .csv)
echo "aa-check: $file, --repeat $repeat, results in $out" >&2

# The standings' win counts and contests of one results folder under one rule:
# prints "WINS CONTESTS" (wins of every approach summed).
wins_of() {
  "$benchd" winners "$1" --winners "$2" |
    awk '/ contests/ { for (i = 1; i <= NF; ++i) if ($i == "contests") contests = $(i - 1) }
         /^  \([0-9]+\) / { wins += $(NF - 3) }
         END { print wins + 0, contests + 0 }'
}

rate() {  # WINS CONTESTS → "W of C cells (P %)"
  awk -v w="$1" -v c="$2" 'BEGIN { printf "%d of %d cells (%.1f %%)", w, c, c ? 100 * w / c : 0 }'
}

report_aa() {  # LABEL FOLDER
  local significant original noise
  significant=$(wins_of "$2" significant)
  original=$(wins_of "$2" original)
  noise=$("$benchd" winners "$2" --winners original | sed -n 's/^median lead of the top two: //p')
  echo "$1: false winners, significance rule: $(rate $significant)"
  echo "$1: false winners, original rule:     $(rate $original)"
  echo "$1: median lead between the copies:   $noise"
}

run() {  # NAME ARGS...
  local name="$1"
  shift
  echo "aa-check: running $name ($(date -u +%H:%M:%S) UTC)" >&2
  "$benchd" run "$file" --repeat "$repeat" --quiet -o "$out/$name" "${overrides[@]}" "$@" >&2
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
    *) echo "aa-check: unknown part '$part'" >&2; exit 2 ;;
  esac
done
