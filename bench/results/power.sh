#!/usr/bin/env bash
# What can the winners grid find, and what does it call where there is nothing to find? One
# invocation, one benchd run: an approach (default callbacks-asio), a byte-identical copy of it
# (APPROACH#2: the A/A pair) and two copies made slower by a known amount of CPU per request (the
# worker's host option benchd.cpu_cost_ns, spent in every request's call into the core), all in
# the same shuffled rounds. Then it ranks each pair from those runs with the significance rule
# (benchd winners -a, the shipped noise thresholds) and prints:
#   - the A/A false-winner rate: cells the copy-against-itself grid calls, of its contests;
#   - for the known 5 % and 10 % differences: the share of the cells the difference affects that
#     the grid calls for the faster approach, and the lead measured in CPU per request (the ratio
#     of the medians of the runs, exact; the median of the rows, then each row with the spread
#     of its per-round ratios). The A/A line prints the copy's measured "lead" too: what the
#     medians of this many rounds move by themselves. Affected: CPU per request in every row;
#     host CPU use (avg, max) in a row with a fixed rate; requests (ok, per second p50 and p90)
#     in a row without a rate, which saturates the server's CPU.
# The costs are set from a calibration run of the approach (3 rounds): 5 % and 10 % of the median
# CPU per request over the file's rows, in ns. The default file's rows are no-delay get-time rows
# without a rate at 10, 50 and 200 connections: the worker's CPU is saturated, so its CPU per
# request is measured over a million requests and its requests per second answer to the cost
# (host CPU use does not: it is near 100 % either way, and lower for the slower copy, whose load
# generator waits more), and their requests cost about the same, so the share holds in each (the
# per-row leads show it). At a fixed low rate the CPU per request of the same code varies far
# more from run to run on a small VM (see docs/metrics-and-ranking.md#how-many-rounds); --file
# runs such rows too.
#
# Usage: bench/results/power.sh [--repeat N] [--approach A] [--file F] [--preset P]
#                               [-w S] [-t S] [--out DIR] [--no-build] [-h]
#   --no-build  run build/P as it is, without building it first
# Defaults: --repeat 10, bench/results/power-scenarios.csv (3 rows of 2 + 10 s: about 28 min).
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=10
approach=callbacks-asio
file=bench/results/power-scenarios.csv
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
run -a "$approach" --repeat 3 -o "$out/calibration"
# results-runs.csv: every run, exact (results.csv rounds the medians to two decimals).
base_ms=$(column_median "$out/calibration/$stem/results-runs.csv" cpu_millis_per_request)
cost_for() {  # SHARE → nanoseconds, at least 1
  python3 -c "print(max(1, round($base_ms * 1e6 * $1)))"
}
cost5=$(cost_for 0.05)
cost10=$(cost_for 0.10)
copy="$approach#2"
slow5="${approach}[benchd.cpu_cost_ns=$cost5]"
slow10="${approach}[benchd.cpu_cost_ns=$cost10]"
bench_log "median CPU per request $base_ms ms; costs $cost5 and $cost10 ns;" \
  "running 4 approaches x $repeat rounds ($(date -u +%H:%M:%S) UTC)"
started=$(date +%s)
run -a "$approach,$copy,$slow5,$slow10" --repeat "$repeat" -o "$out/power"
folder="$out/power/$stem"

# "FOUND AFFECTED": the affected cells (see the head) that the grid of the approach against
# SLOW calls for the approach.
found_of() {  # SLOW
  "$benchd" winners "$folder" -a "$approach,$1" --winners significant --grid |
    python3 -c '
import csv, os, sys
fast, scenario_file = sys.argv[1], sys.argv[2]
if not os.path.exists(scenario_file):  # a bare name: benchd looks it up in scenarios/
    scenario_file = os.path.join("scenarios", scenario_file)
with open(scenario_file, newline="") as f:
    lines = [l for l in f if l.strip() and not l.startswith("#")]
rows = list(csv.reader(lines))[1:]
saturating = {r[0] for r in rows if len(r) > 6 and r[6].strip() == ""}
cpu = {"cpu_millis_per_request"}
fixed_rate = cpu | {"cpu_use_percent_avg", "cpu_use_percent_max"}
closed = cpu | {"requests_ok", "requests_per_second_p50", "requests_per_second_p90"}
scenarios, found, affected = [], 0, 0
for line in sys.stdin:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if line.startswith("| metric |"):
        scenarios = cells[1:]
        continue
    if not scenarios or not line.startswith("|") or line.startswith("|---"):
        continue
    metric = cells[0].split(" ")[0]
    for scenario, cell in zip(scenarios, cells[1:]):
        if metric in (closed if scenario in saturating else fixed_rate):
            affected += 1
            found += cell.startswith(fast + " ")
print(found, affected)
' "$approach" "$file"
}

# Each row's lead of the approach over SLOW in CPU per request: the ratio of the medians of the
# runs (results-runs.csv: exact; results.csv rounds to two decimals), and the spread of the
# per-round ratios (their standard deviation: the noise the paired test sees).
row_leads() {  # SLOW
  python3 - "$folder/results-runs.csv" "$approach" "$1" <<'EOF'
import csv, statistics, sys
path, fast, slow = sys.argv[1:4]
with open(path, newline="") as f:
    rows = list(csv.DictReader(f))
values = {}
for r in rows:
    value = r["cpu_millis_per_request"]
    values.setdefault((r["scenario"], r["approach"]), []).append(
        float(value) if value not in ("", "nan") else None)
leads, row_leads = [], []
for scenario in dict.fromkeys(r["scenario"] for r in rows):
    a, b = values.get((scenario, fast), []), values.get((scenario, slow), [])
    pairs = [(x, y) for x, y in zip(a, b) if x and y is not None]
    if len(pairs) < 2:
        leads.append(f"{scenario} n/a")
        continue
    lead = statistics.median(y for _, y in pairs) / statistics.median(x for x, _ in pairs) - 1
    spread = statistics.stdev(y / x - 1 for x, y in pairs)
    row_leads.append(lead)
    leads.append(f"{scenario} {100 * lead:+.1f} % (rounds: sd {100 * spread:.1f} %)")
# The lead measured, not the one asked for: what the detection share is a share of.
measured = f"{100 * statistics.median(row_leads):+.1f} %" if row_leads else "n/a"
print(f"measured lead {measured} (median of the rows); per row: " + ", ".join(leads))
EOF
}

echo "power: $file, $approach, $repeat rounds of 4 approaches in $(($(date +%s) - started)) s"
# shellcheck disable=SC2046  # "COUNT OF", split into bench_cells' two arguments
echo "A/A ($approach against $copy): false winners" \
  "$(bench_cells $(bench_wins "$folder" -a "$approach,$copy" --winners significant));" \
  "CPU per request of the copy: $(row_leads "$copy")"
# shellcheck disable=SC2046
echo "known 5 % ($cost5 ns per call into the core):" \
  "found in $(bench_cells $(found_of "$slow5"))" \
  "of the CPU cells it affects; $(row_leads "$slow5")"
# shellcheck disable=SC2046
echo "known 10 % ($cost10 ns per call into the core):" \
  "found in $(bench_cells $(found_of "$slow10"))" \
  "of the CPU cells it affects; $(row_leads "$slow10")"
