#!/usr/bin/env python3
"""The study's verdict in a few lines, every figure taken from its own output.

Usage: tldr.py GRID_MD STUDY_DIR > tldr.md

GRID_MD is `benchd winners FOLDER --grid`'s output (the standings and the grid, whose cells hold
the winner, the median of its runs and the interval of the median); STUDY_DIR holds results.csv
(the medians of every approach, for the runner-up) and is what the lines link to. Nothing here is
typed by hand but the questions: which metric of which scenario answers each.
"""
import csv
import re
import sys

# (question, metric, scenario): the cells a reader choosing a model asks about first.
QUESTIONS = [
    ("Requests per second, saturated (no delay, 50 connections)",
     "requests_per_second_p50", "study-get-time-no-delay-saturating"),
    ("CPU per request at 1,000 connections (100 ms delay)",
     "cpu_millis_per_request", "study-1k-vus-and-rps-get-movies"),
    ("Memory (RSS, MiB) at 9,800 connections",
     "rss_mib_max", "study-9800-vus-and-rps-get-movies"),
    ("p99 latency (ms) at 9,800 connections",
     "latency_millis_p99", "study-9800-vus-and-rps-get-movies"),
    ("p99 latency (ms) with a nested call",
     "latency_millis_p99", "study-1k-vus-and-rps-get-movies-call-depth-1"),
]


def table_rows(lines, header_start):
    """The rows (lists of cells) of the Markdown table whose header starts with header_start."""
    rows, inside = [], False
    for line in lines:
        if line.startswith(header_start):
            inside = True
            rows.append([c.strip() for c in line.strip().strip("|").split("|")])
            continue
        if inside:
            if not line.startswith("|"):
                break
            if not line.startswith("|---"):
                rows.append([c.strip() for c in line.strip().strip("|").split("|")])
    return rows


def caveats_by_scenario(results_md):
    """{scenario: {caveat: runs}} from results.md's caveat lines ("- SCENARIO × APPROACH (run N):
    **CAVEAT**, ..."): a verdict on a scenario whose runs carry one is read with it."""
    found = {}
    pattern = re.compile(r"^- (\S+) × \S+(?: \(run \d+\))?: \*\*(.+?)\*\*")
    for line in open(results_md).read().splitlines():
        match = pattern.match(line)
        if match:
            kinds = found.setdefault(match.group(1), {})
            kinds[match.group(2)] = kinds.get(match.group(2), 0) + 1
    return found


def main():
    grid_path, study = sys.argv[1], sys.argv[2]
    lines = open(grid_path).read().splitlines()
    standings = table_rows(lines, "| rank | approach")[1:]
    grid = table_rows(lines, "| metric |")
    if not grid:
        sys.exit(f"{grid_path}: no winners grid (was it written by `benchd winners --grid`?)")
    scenarios = grid[0][1:]
    cells = {}
    for row in grid[1:]:
        metric = row[0].split(" ")[0]
        for scenario, cell in zip(scenarios, row[1:]):
            cells[(metric, scenario)] = cell
    with open(f"{study}/results.csv", newline="") as f:
        medians = list(csv.DictReader(f))
    rounds = re.search(r"(\d+) rounds per approach", "\n".join(lines))
    caveats = caveats_by_scenario(f"{study}/results.md")

    wins = ", ".join(f"{row[1]} {row[2]}" for row in standings if row[1] and row[0].isdigit())
    no_winner = next((row for row in standings if row[0] == "–" or not row[0].isdigit()), None)
    print("**benchd's study** ([how it was made](" + study + "/study.md), "
          f"[results]({study}/results.md)): five C++ concurrency models, "
          f"{rounds.group(1) if rounds else '?'} rounds each, decided by the significance rule.")
    print()
    line = f"- Cells won: {wins}"
    if no_winner:
        line += f"; no significant winner in {no_winner[2]} cells ({no_winner[3]})"
    print(line + ".")
    for question, metric, scenario in QUESTIONS:
        cell = cells.get((metric, scenario))
        if cell is None:
            continue
        higher = metric.startswith("requests_per_second") or metric == "requests_ok"
        ranked = sorted(
            ((r["approach"], r[metric]) for r in medians
             if r["scenario"] == scenario and r[metric] != ""),
            key=lambda item: float(item[1]), reverse=higher)
        everyone = ", ".join(f"{name} {value}" for name, value in ranked)
        if cell.startswith("~ "):
            verdict = "no significant difference between the top two"
        elif cell.startswith("draw"):
            verdict = "a draw"
        else:
            match = re.match(r"(\S+) (\S+) \[(\S+), (\S+)\]", cell)
            verdict = (f"**{match.group(1)}** wins, {match.group(2)} "
                       f"[{match.group(3)}, {match.group(4)}]") if match else cell
        runs = len(ranked) * int(rounds.group(1)) if rounds else None
        marks = "; ".join(f"{kind} in {count}{f' of {runs}' if runs else ''} runs"
                          for kind, count in sorted(caveats.get(scenario, {}).items()))
        caveat = f" Caveat ([results]({study}/results.md)): {marks}." if marks else ""
        print(f"- {question}: {verdict}; medians {everyone}.{caveat}")

if __name__ == "__main__":
    main()
