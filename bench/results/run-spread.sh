#!/usr/bin/env bash
# Where does the spread of a metric across rounds come from: inside each run (seconds that move
# by themselves), or between runs (the machine changing speed, a fresh worker's luck)? Reads a
# benchd store (benchd.sqlite of any `benchd run`, e.g. power.sh's) and prints, per scenario, every
# run in the order it ran: its round, approach, start time, the worker's and the load generator's
# CPU per request in µs over the test phase (CPU µs of the process over requests answered), and
# how much the test's seconds of worker CPU per request vary inside the run (their relative
# standard deviation). Then per scenario:
#   within a run:  the median of the runs' own second-to-second spread;
#   between runs:  the relative standard deviation of the runs' values, per approach (median);
#   steps:         consecutive runs (any approach) whose values differ by more than 15 %.
# When "between" is many times "within", the rounds differ because the machine does, not
# because a run is too short: longer runs will not help, pairing by round helps only as far as
# the rounds' runs share the machine's state, and the steps say how often that state changed.
#
# Usage: bench/results/run-spread.sh STORE [SCENARIO...] [-h]
#   STORE     a benchd.sqlite (its newest run is read)
#   SCENARIO  only these scenarios (default: all of the run's)
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

store=""
scenarios=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) bench_usage ;;
    -*) bench_usage_error "unknown option $1" ;;
    *)
      if [ -z "$store" ]; then store=$1; else scenarios+=("$1"); fi
      ;;
  esac
  shift
done
[ -n "$store" ] || bench_usage_error "a STORE is required"
[ -f "$store" ] || bench_die "$store: no such file"
bench_require python3

python3 - "$store" "${scenarios[@]}" <<'EOF'
import sqlite3, statistics, sys, time

path, wanted = sys.argv[1], set(sys.argv[2:])
db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
run_id = db.execute("SELECT max(id) FROM run").fetchone()[0]
if run_id is None:
    sys.exit(f"{path}: no run stored")
seconds = db.execute(
    """SELECT r.id, r.scenario, r.approach, r.repeat_number, ss.epoch_millis,
              ss.worker_cpu_micros, ss.generator_cpu_micros, ls.requests_ok
       FROM result r
       JOIN system_second ss ON ss.result_id = r.id AND ss.phase = 'test'
       JOIN load_second ls ON ls.result_id = r.id AND ls.phase = ss.phase AND ls.idx = ss.idx
       WHERE r.run_id = ? AND r.finished = 1 AND r.failed = 0
       ORDER BY ss.epoch_millis""", (run_id,)).fetchall()
runs = {}
for rid, scenario, approach, rnd, millis, worker_us, generator_us, ok in seconds:
    if wanted and scenario not in wanted:
        continue
    run = runs.setdefault(rid, {"scenario": scenario, "approach": approach, "round": rnd,
                                "start": millis, "w": 0, "g": 0, "ok": 0, "per_second": []})
    run["w"] += worker_us
    run["g"] += generator_us
    run["ok"] += ok
    if ok > 0:
        run["per_second"].append(worker_us / ok)
if not runs:
    sys.exit(f"{path}: run {run_id} has no finished test seconds" +
             (" for " + ", ".join(sorted(wanted)) if wanted else ""))

def rsd(values):
    return statistics.stdev(values) / statistics.mean(values) * 100 if len(values) > 1 else 0.0

print(f"run {run_id} of {path}")
for scenario in sorted({r["scenario"] for r in runs.values()}):
    mine = sorted((r for r in runs.values() if r["scenario"] == scenario and r["ok"] > 0),
                  key=lambda r: r["start"])
    print(f"\n{scenario}:")
    print(f"  {'round':>5}  {'approach':<28} {'start':>8}  {'worker us/req':>13}  "
          f"{'generator us/req':>16}  {'seconds rsd':>11}")
    for r in mine:
        r["value"] = r["w"] / r["ok"]
        print(f"  {r['round']:>5}  {r['approach']:<28} "
              f"{time.strftime('%H:%M:%S', time.gmtime(r['start'] / 1000))}  "
              f"{r['value']:>13.2f}  {r['g'] / r['ok']:>16.2f}  {rsd(r['per_second']):>10.1f}%")
    within = statistics.median(rsd(r["per_second"]) for r in mine)
    by_approach = {}
    for r in mine:
        by_approach.setdefault(r["approach"], []).append(r["value"])
    between = statistics.median(rsd(v) for v in by_approach.values())
    steps = sum(1 for a, b in zip(mine, mine[1:])
                if max(a["value"], b["value"]) / min(a["value"], b["value"]) > 1.15)
    print(f"  within a run: {within:.1f} % (median of the runs' second-to-second spread)")
    print(f"  between runs: {between:.1f} % (relative sd of each approach's runs, median)")
    print(f"  steps: {steps} of {len(mine) - 1} consecutive runs differ by more than 15 %")
EOF
