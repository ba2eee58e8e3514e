#!/usr/bin/env bash
# What can the winners grid find, and what does it call where there is nothing to find? One
# invocation, one benchd run: an approach (default callbacks-asio), a byte-identical copy of it
# (APPROACH#2: the A/A pair) and two copies made slower by a known amount of CPU per request (the
# worker's host option benchd.cpu_cost_us, spent in every request's call into the core), all in
# the same shuffled rounds. Then it ranks each pair from those runs with the significance rule
# (benchd winners -a) and prints:
#   - the A/A false-winner rate: cells the copy-against-itself grid calls, of its contests;
#   - for the known 5 % and 10 % differences: the share of the cells the difference affects
#     (cpu_millis_per_request, cpu_use_percent_avg, cpu_use_percent_max) that the grid calls
#     for the faster approach, and each row's real lead in CPU per request (the medians).
# The costs are set from a calibration run of the approach: 5 % and 10 % of the median CPU per
# request over the file's rows (a row whose requests make two calls into the core, a nested
# call, pays the cost twice; the per-row leads show it).
#
# Usage: bench/results/power.sh [--repeat N] [--approach A] [--file F] [--preset P]
#                               [-w S] [-t S] [--out DIR] [--no-build] [-h]
#   --no-build  run build/P as it is, without building it first
# Defaults: --repeat 10, scenarios-ci.csv (4 rows: about 4 x 12 s x 4 approaches x N rounds).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=10
approach=callbacks-asio
file=scenarios-ci.csv
out=""
overrides=()
while [ $# -gt 0 ]; do
  bench_results_option "$@"
  shift "$bench_shift"
done

bench_build
bench_results_out  # out, stem
bench_log "$file, $approach, --repeat $repeat, results in $out"

# benchd run, where 3 (completed, some results failed) still leaves results to read; the
# failures are in results.md.
run() {
  bench_run "$benchd" run "$file" --quiet "${overrides[@]}" "$@" >&2 || {
    local status=$?
    [ "$status" -eq 3 ] || exit "$status"
    bench_log "some results failed; see their results.md"
  }
}

# The median of column NAME over the rows of results.csv FILE (optionally of one approach).
column_median() {  # FILE NAME [APPROACH]
  python3 - "$@" <<'EOF'
import csv, statistics, sys
path, name = sys.argv[1], sys.argv[2]
approach = sys.argv[3] if len(sys.argv) > 3 else None
with open(path, newline="") as f:
    rows = [r for r in csv.DictReader(f) if approach is None or r["approach"] == approach]
values = [float(r[name]) for r in rows if r[name] not in ("", "nan")]
print(statistics.median(values) if values else "nan")
EOF
}

bench_log "calibrating ($(date -u +%H:%M:%S) UTC)"
run -a "$approach" -o "$out/calibration"
base_ms=$(column_median "$out/calibration/$stem/results.csv" cpu_millis_per_request)
cost_for() {  # SHARE → microseconds, at least 1
  python3 -c "print(max(1, round($base_ms * 1000 * $1)))"
}
cost5=$(cost_for 0.05)
cost10=$(cost_for 0.10)
copy="$approach#2"
slow5="${approach}[benchd.cpu_cost_us=$cost5]"
slow10="${approach}[benchd.cpu_cost_us=$cost10]"
bench_log "median CPU per request $base_ms ms; costs $cost5 and $cost10 us;" \
  "running 4 approaches x $repeat rounds ($(date -u +%H:%M:%S) UTC)"
started=$(date +%s)
run -a "$approach,$copy,$slow5,$slow10" --repeat "$repeat" -o "$out/power"
folder="$out/power/$stem"

# "FOUND AFFECTED": the affected cells (CPU per request, CPU use) that the grid of the approach
# against SLOW calls for the approach.
found_of() {  # SLOW
  "$benchd" winners "$folder" -a "$approach,$1" --winners significant --grid |
    awk -F'|' -v fast="$approach " '
      $2 ~ /^ (cpu_millis_per_request|cpu_use_percent_avg|cpu_use_percent_max) / {
        for (i = 3; i < NF; ++i) {
          cell = $i; sub(/^ /, "", cell)
          affected++
          if (index(cell, fast) == 1) found++
        }
      }
      END { print found + 0, affected + 0 }'
}

# Each row's lead of the approach over SLOW in CPU per request, from the medians.
row_leads() {  # SLOW
  python3 - "$folder/results.csv" "$approach" "$1" <<'EOF'
import csv, sys
path, fast, slow = sys.argv[1:4]
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
value = {(r["scenario"], r["approach"]): r["cpu_millis_per_request"] for r in rows}
leads = []
for scenario in dict.fromkeys(r["scenario"] for r in rows):
    a, b = value.get((scenario, fast), "nan"), value.get((scenario, slow), "nan")
    try:
        leads.append(f"{scenario} {100 * (float(b) / float(a) - 1):.1f} %")
    except (ValueError, ZeroDivisionError):
        leads.append(f"{scenario} n/a")
print(", ".join(leads))
EOF
}

echo "power: $file, $approach, $repeat rounds of 4 approaches in $(($(date +%s) - started)) s"
# shellcheck disable=SC2046  # "COUNT OF", split into bench_cells' two arguments
echo "A/A ($approach against $copy): false winners" \
  "$(bench_cells $(bench_wins "$folder" -a "$approach,$copy" --winners significant))"
# shellcheck disable=SC2046
echo "known 5 % ($cost5 us per call into the core):" \
  "found in $(bench_cells $(found_of "$slow5"))" \
  "of the CPU cells it affects; lead per row: $(row_leads "$slow5")"
# shellcheck disable=SC2046
echo "known 10 % ($cost10 us per call into the core):" \
  "found in $(bench_cells $(found_of "$slow10"))" \
  "of the CPU cells it affects; lead per row: $(row_leads "$slow10")"
