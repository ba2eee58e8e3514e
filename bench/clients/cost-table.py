#!/usr/bin/env python3
"""What each client of the nested call costs, from a benchd store of the C++ clients file.

Usage: cost-table.py STORE [RUN_ID]   (default: the store's latest run)

Each row of scenarios-cpp-clients.csv names one client profile and a call depth d. Every level
of a chain adds one served request and one nested call, so the slope of a least-squares line of
a per-request figure over the depths is what one level costs: for CPU (microseconds) and context
switches. A served request costs a plugin the same whatever its client, so the difference of two
clients' slopes is the difference of their nested calls. (The intercept is no served request's
cost: at these rates it holds the worker's fixed costs per second, spread over the requests.)
The rest are read at depth 5:
OS threads (max), upstream connections open (max) and the worker's descriptors (max), and the
upstream connections still open in the test's last second (the pool the spike left, idle
connections close 30 s after their last call). Every figure is
the median of the rounds (failed runs left out, their count shown). The reference in the same
run is each plugin's native client (client-beast, or client-poco in threads-poco): "x native"
is a client's CPU per level over the native one's, "+ native" their difference (what the
client's nested call costs beyond the native one's).
"""
import sqlite3
import statistics
import sys

CLIENT_PREFIX = "client-"
NATIVE = {"threads-poco": "client-poco"}  # every other in-tree plugin's is client-beast


def counters_of(text):
    values = {}
    for line in (text or "").splitlines():
        name, _, value = line.partition("=")
        if value:
            values[name] = float(value)
    return values


def fit(points):
    """Intercept and slope of the least-squares line through (x, y) points."""
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - slope * mx, slope


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.strip().splitlines()[2])
    db = sqlite3.connect(sys.argv[1])
    run_id = int(sys.argv[2]) if len(sys.argv) == 3 else db.execute(
        "SELECT max(id) FROM run").fetchone()[0]
    rows = {name: (profiles, depth) for name, profiles, depth in db.execute(
        "SELECT name, server_profiles, delay_call_depth FROM scenario_row WHERE run_id = ?",
        (run_id,))}
    # (approach, client) -> depth -> metric -> [value per round]
    table, failed = {}, {}
    for result_id, scenario, approach, finished, failed_run in db.execute(
            "SELECT id, scenario, approach, finished, failed FROM result WHERE run_id = ?",
            (run_id,)):
        profiles, depth = rows[scenario]
        clients = [p for p in profiles.split("|") if p.startswith(CLIENT_PREFIX)]
        if not clients:
            continue
        key = (approach, clients[0])
        if not finished:
            continue  # cut off by a stop
        if failed_run:
            failed[key] = failed.get(key, 0) + 1
            continue
        metrics = dict(db.execute(
            "SELECT name, value FROM result_metric WHERE result_id = ?", (result_id,)))
        seconds = db.execute(
            "SELECT worker_open_fds, worker_counters FROM system_second "
            "WHERE result_id = ? AND phase = 'test' ORDER BY idx", (result_id,)).fetchall()
        upstream = [counters_of(c).get("upstream_connections_open", 0.0) for _, c in seconds]
        values = {
            "cpu_us": metrics.get("cpu_millis_per_request", float("nan")) * 1000.0,
            "ctx": metrics.get("context_switches_per_request", float("nan")),
            "threads": metrics.get("os_threads_max", float("nan")),
            "p99": metrics.get("latency_millis_p99", float("nan")),
            "upstream_max": max(upstream, default=0.0),
            "fds_max": max((fds for fds, _ in seconds), default=0),
            "upstream_last": upstream[-1] if upstream else 0.0,
        }
        for name, value in values.items():
            table.setdefault(key, {}).setdefault(depth, {}).setdefault(name, []).append(value)

    def median(key, depth, name):
        values = table.get(key, {}).get(depth, {}).get(name, [])
        return statistics.median(values) if values else None

    print(f"run {run_id}: what one level of a chain costs, per (plugin, client); medians of the rounds")
    print()
    def per_level(key, name):
        points = [(d, median(key, d, name)) for d in sorted(table.get(key, {}))]
        points = [(d, v) for d, v in points if v is not None]
        if len({d for d, _ in points}) < 2:
            return None
        return fit(points)[1]

    print("| plugin | client | CPU µs / level | x native | + native µs | ctx sw / level "
          "| OS threads max (d5) | upstream conns max (d5) | worker fds max (d5) "
          "| conns open at the end (d5) | p99 ms d1 / d2 / d5 | failed runs |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for key in sorted(set(table) | set(failed)):
        cpu = per_level(key, "cpu_us")
        ctx = per_level(key, "ctx")
        native = per_level((key[0], NATIVE.get(key[0], "client-beast")), "cpu_us")
        ratio = "–" if cpu is None or not native else f"{cpu / native:.2f}"
        extra = "–" if cpu is None or native is None else f"{cpu - native:+.1f}"
        cells = ["–" if cpu is None else f"{cpu:.1f}", ratio, extra,
                 "–" if ctx is None else f"{ctx:.2f}"]

        def at5(name, spec=".0f"):
            value = median(key, 5, name)
            return "–" if value is None else format(value, spec)

        p99 = " / ".join("–" if median(key, d, "p99") is None else f"{median(key, d, 'p99'):.0f}"
                         for d in (1, 2, 5))
        print(f"| {key[0]} | {key[1]} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} "
              f"| {at5('threads')} "
              f"| {at5('upstream_max')} | {at5('fds_max')} | {at5('upstream_last')} | {p99} "
              f"| {failed.get(key, 0)} |")


if __name__ == "__main__":
    main()
