#!/usr/bin/env bash
# How much load does each approach hold within a latency goal, and does the search find a
# capacity that is known? One benchd run of the capacity rows (scenarios-capacity.csv: no delay
# under p99 <= 50 ms; a nested call and a 100 ms wait under p99 <= 150 ms) against every
# approach plugin and a reference of known capacity in the same shuffled rounds:
# callbacks-asio[benchd.max_rate=K], whose worker serves at most K calls into the core per
# second, so it holds K req/s at call depth 0 and K/2 at depth 1. Prints, per row:
#   - the reference's found rate as a share of its known capacity (the search's accuracy, which
#     its resolution bounds: found <= known < found x (1 + resolution));
#   - per approach the median rate found over the rounds, their range, how the searches ended
#     (a generator-saturated search is a lower bound: this machine's load generator, not the
#     server, ran out), and the ratio to the first approach's median;
#   - the winners grid's capacity cell (the paired test over the rounds; a row where a search
#     ended at a lower bound is not ranked).
#
# Usage: bench/results/capacity.sh [--repeat N] [--approach A,B,...] [--file F] [--known K]
#                                  [--preset P] [-w S] [-t S] [--out DIR] [--no-build]
#                                  [--report DIR] [-h]
#   --approach  the approaches to compare (default: every approach plugin; the first is the
#               ratios' reference)
#   --known K   the reference's max_rate (default 4000)
#   --report DIR  run nothing: print the figures of an earlier run of this script (its --out
#               DIR), also one that was stopped (then of the rounds it finished)
# Defaults: --repeat 5, scenarios/scenarios-capacity.csv (2 rows of 2 + 5 s per trial). A
# search takes 8 to 16 trials, fewer in later rounds when the server, not the generator, is
# the limit: on the 2-core development machine a round of the no-delay row took about 12 min
# (the load generator's core is the limit there, and its noise makes long searches), one of
# the nested-call row about 6 min. bench/results/capacity-nested-call.csv is that row alone.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=5
approach=callbacks-asio,coroutines-asio,fibers-asio,threads-asio,threads-poco
file=scenarios/scenarios-capacity.csv
known=4000
out=""
report=""
overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --known | --report)
      [ $# -ge 2 ] || bench_usage_error "$1 needs a value"
      if [ "$1" = --known ]; then known=$2; else report=$2; fi
      bench_shift=2 ;;
    *) bench_results_option "$@" ;;
  esac
  shift "$bench_shift"
done

reference="callbacks-asio[benchd.max_rate=$known]"
if [ -n "$report" ]; then
  out=$report
  stem=$(basename "$file" .csv)
  [ -d "$out/capacity/$stem" ] || bench_die "--report $report: no $out/capacity/$stem"
  echo "capacity: $file, the rounds an earlier run finished ($report)"
else
  bench_build
  bench_results_out  # out, stem
  bench_log "$file, $approach and $reference, --repeat $repeat, results in $out"
  started=$(date +%s)
  bench_run "$benchd" run "$file" --quiet "${overrides[@]}" -a "$approach,$reference" \
    --repeat "$repeat" -o "$out/capacity" >&2 || {
    status=$?
    [ "$status" -eq 3 ] || exit "$status"
    bench_log "some results failed; see their results.md"
  }
  echo "capacity: $file, $repeat rounds in $(($(date +%s) - started)) s"
fi
folder="$out/capacity/$stem"
# The grid as results.md has it: ranked from the stored results, which know a lower bound (a
# results file does not).
grid=$(cat "$folder/results.md")
python3 - "$folder/results-runs.csv" "$out/capacity/benchd.sqlite" "$approach" "$reference" \
  "$known" "$file" "$grid" <<'PYTHON'
import csv, os, sqlite3, statistics, sys
runs_csv, store, approaches, reference, known, scenario_file = sys.argv[1:7]
grid = sys.argv[7] if len(sys.argv) > 7 else ""
approaches = approaches.split(",")
known = float(known)
with open(scenario_file, newline="") as f:
    lines = [l for l in f if l.strip() and not l.startswith("#")]
rows = {r[0]: r for r in list(csv.reader(lines))[1:]}
rates = {}
if not os.path.exists(runs_csv):  # one round: results.csv holds its runs
    runs_csv = os.path.join(os.path.dirname(runs_csv), "results.csv")
with open(runs_csv, newline="") as f:
    for r in csv.DictReader(f):
        value = r.get("requests_per_second_capacity", "")
        if value not in ("", "nan"):
            rates.setdefault((r["scenario"], r["approach"]), []).append(float(value))
verdicts = {}
with sqlite3.connect(store) as db:
    for scenario, approach, verdict in db.execute(
            "SELECT r.scenario, r.approach, d.value FROM result r JOIN result_diagnostic d "
            "ON d.result_id = r.id WHERE d.name = 'capacity_verdict'"):
        verdicts.setdefault((scenario, approach), []).append(verdict)
grid_cells = {}
scenarios_in_grid = []
for line in grid.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if line.startswith("| metric |"):
        scenarios_in_grid = cells[1:]
    elif line.startswith("| requests_per_second_capacity"):
        grid_cells = dict(zip(scenarios_in_grid, cells[1:]))
for scenario, row in rows.items():
    depth = int(row[3])
    goal = row[9] if len(row) > 9 else ""
    print(f"{scenario} (goal {goal}, depth {depth}, {row[5]} connections):")
    expected = known / (depth + 1)
    found = rates.get((scenario, reference), [])
    if found:
        shares = [v / expected for v in found]
        print(f"  known capacity {expected:,.0f} req/s ({reference}): found "
              f"{statistics.median(found):,.0f} median = {statistics.median(shares):.3f} of it "
              f"(rounds {min(shares):.3f} to {max(shares):.3f})")
    base = statistics.median(rates[(scenario, approaches[0])]) \
        if rates.get((scenario, approaches[0])) else None
    for approach in approaches:
        values = rates.get((scenario, approach), [])
        ends = verdicts.get((scenario, approach), [])
        ended = ", ".join(f"{ends.count(v)} {v}" for v in dict.fromkeys(ends)) or "none ended"
        if not values:
            print(f"  {approach}: no rate found ({ended})")
            continue
        median = statistics.median(values)
        ratio = f"{median / base:.2f}x {approaches[0]}" if base else "n/a"
        print(f"  {approach}: {median:,.0f} req/s median [{min(values):,.0f} to "
              f"{max(values):,.0f}], {ratio}; searches: {ended}")
    if scenario in grid_cells:
        print(f"  grid: {grid_cells[scenario]}")
PYTHON
