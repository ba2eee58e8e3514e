#!/usr/bin/env bash
# benchd's own answer to its question: scenarios/scenarios-study.csv (rows chosen to separate
# the models on two cores: a saturating no-delay row, 100 ms delay rows at 1,000, 5,000 and 9,800
# connections, a nested call, a smooth spike, a postgres row at pool 16) over every approach
# plugin, at --repeat N rounds (default 10: what bench/results/power.sh measured to find a 10 %
# difference), decided by the significance rule. About 1 h 35 min on the 2-core development
# machine; a study cut off (Ctrl-C, a kill, a power loss) goes on with --resume.
#
# Its output goes to docs/study/<date>/ (or --out DIR), every file written by a program:
#   results.md, results.csv, results-runs.csv, noise-thresholds.csv  as `benchd run` wrote them
#   results.png and <scenario>/<approach>.png                        the charts (benchd-report)
#   grid.md        the winners grid with every cell's median and interval (`benchd winners --grid`)
#   tldr.md        the verdict in a few lines, each figure taken from grid.md (tldr.py)
#   study.md       the command, the commit, the machine, the wall time
# and, with --update-readme, tldr.md replaces the block between the study markers in README.md.
#
# Usage: bench/study/run.sh [--repeat N] [--out DIR] [--resume | --publish] [--update-readme]
#                           [--preset P] [--no-build] [-h]
#   --resume         go on with the study in DIR (its store's run 1) instead of starting one
#   --publish        run nothing: publish the study in DIR again from its raw results (e.g.
#                    after tldr.py changed)
#   --update-readme  put tldr.md into README.md between <!-- study:begin --> and <!-- study:end -->
#   --no-build       run build/P as it is, without building it first
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$bench_root"

repeat=10
out=""
resume=0
publish=0
update_readme=0
while [ $# -gt 0 ]; do
  case "$1" in
    --repeat | --out)
      [ $# -ge 2 ] || bench_usage_error "$1 needs a value"
      if [ "$1" = --repeat ]; then repeat=$2; else out=$2; fi
      shift 2 ;;
    --resume) resume=1; shift ;;
    --publish) publish=1; shift ;;
    --update-readme) update_readme=1; shift ;;
    *) bench_common_option "$@"; shift "$bench_shift" ;;
  esac
done
[ -n "$out" ] || out=docs/study/$(date -u +%Y-%m-%d)
file=scenarios/scenarios-study.csv
stem=scenarios-study

[ "$publish" = 1 ] || bench_build benchd_runtime benchd-report
[ "$publish" = 0 ] || bench_use_tree "build/$preset"
mkdir -p "$out"
# The 9,800-connection row opens its connections at once: a listen backlog capped below that by
# net.core.somaxconn would delay connects (benchd run --plan warns). Raised for the study when
# this user may, put back at exit; results.md's system specs record the value used.
set_somaxconn() { echo "$1" > /proc/sys/net/core/somaxconn; }
somaxconn=$(cat /proc/sys/net/core/somaxconn)
if [ "$publish" = 0 ] && [ "$somaxconn" -lt 10000 ]; then
  if [ -w /proc/sys/net/core/somaxconn ] && set_somaxconn 10000; then
    bench_at_exit set_somaxconn "$somaxconn"
    bench_log "somaxconn raised from $somaxconn to 10000 for the study (put back at exit)"
  else
    bench_log "somaxconn $somaxconn caps the listen backlog below 9,800 connections" \
      "(root: sysctl -w net.core.somaxconn=10000); the study goes on"
  fi
fi
raw=$out/raw  # benchd run's results folder and store; the published files are copied from it
started=$(date +%s)
if [ "$publish" = 1 ]; then
  [ -d "$raw/$stem" ] || bench_die "no study in $raw to publish"
  bench_log "publishing the study in $out again from $raw"
elif [ "$resume" = 1 ]; then
  [ -f "$raw/benchd.sqlite" ] || bench_die "no study to resume in $raw"
  git rev-parse HEAD >> "$raw/commit"
  bench_log "resuming the study in $out ($(date -u +%H:%M:%S) UTC)"
  bench_run "$benchd" run --resume 1 -o "$raw" >&2 || status=$?
else
  [ ! -e "$raw/benchd.sqlite" ] ||
    bench_die "$raw already holds a study: --resume goes on with it, or remove it"
  bench_log "$file, every approach, --repeat $repeat, into $out ($(date -u +%H:%M:%S) UTC)"
  mkdir -p "$raw"
  # The commit each part ran (study.md names them), with a mark when the tree had changes.
  echo "$(git rev-parse HEAD)$(git diff --quiet HEAD -- . ':!docs/study' || echo ' (with local changes)')" \
    > "$raw/commit"
  bench_run "$benchd" run "$file" --repeat "$repeat" -o "$raw" >&2 || status=$?
fi
status=${status:-0}
# 3: completed with some results failed; they are in results.md and stay in the study.
[ "$status" -eq 0 ] || [ "$status" -eq 3 ] || bench_die "benchd run ended with $status"
seconds=$(($(date +%s) - started))
repeats=$(sed -n 's/.*Repeats: \([0-9]*\) rounds.*/\1/p' "$raw/$stem/results.md" | head -1)

folder=$raw/$stem
for name in results.md results.csv results-runs.csv noise-thresholds.csv results.png; do
  [ ! -f "$folder/$name" ] || cp "$folder/$name" "$out/$name"
done
find "$folder" -mindepth 2 -name '*.png' | while read -r chart; do
  target=$out/${chart#"$folder"/}
  mkdir -p "$(dirname "$target")"
  cp "$chart" "$target"
done
"$benchd" winners "$folder" --grid > "$out/grid.md"
python3 bench/study/tldr.py "$out/grid.md" "$out" > "$out/tldr.md"
{
  echo "# How this study was made"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| command | \`bench/study/run.sh --repeat ${repeats:-$repeat}\`$([ "$(wc -l < "$raw/commit")" -le 1 ] || echo ", then \`--resume\`") |"
  echo "| commit | $(paste -sd ' ' "$raw/commit" | sed 's/ \([0-9a-f]\{40\}\)/, resumed at \1/g') |"
  echo "| scenario file | [\`$file\`](../../../$file) |"
  echo "| machine | $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM, $(uname -r); the rest of the specs are in [results.md](results.md#system-specs) |"
  echo "| wall time | $(sed -n 's/^| Duration | \(.*\) |$/\1/p' "$raw/$stem/results.md") (results.md's start to end, any time between resumed parts included) |"
  echo "| published | $(date -u '+%Y-%m-%d %H:%M UTC') |"
} > "$out/study.md"
echo "study: $out ($((seconds / 60)) min $((seconds % 60)) s in this invocation)"
cat "$out/tldr.md"

if [ "$update_readme" = 1 ]; then
  python3 - "$out/tldr.md" README.md <<'PY'
import re, sys
tldr, readme = sys.argv[1], sys.argv[2]
block = open(tldr).read().strip()
text = open(readme).read()
pattern = re.compile(r"(<!-- study:begin -->\n).*?(\n<!-- study:end -->)", re.S)
if not pattern.search(text):
    sys.exit("README.md has no <!-- study:begin --> ... <!-- study:end --> block")
open(readme, "w").write(pattern.sub(lambda m: m.group(1) + block + m.group(2), text))
PY
  bench_log "README.md's study block now holds $out/tldr.md"
fi
