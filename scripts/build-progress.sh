#!/usr/bin/env bash
# A filter for ninja's output: a long build shows one line per tenth of its steps on stderr
# ("<label>: build 40% (120 of 300 steps)") instead of one per step. Lines that are not ninja
# step lines (compiler warnings and errors) go to stderr in full unless --quiet is given (then
# the caller keeps the full log itself).
# Usage: ninja ... | scripts/build-progress.sh LABEL [--quiet]
set -euo pipefail
label=${1:?usage: build-progress.sh LABEL [--quiet]}
quiet=0
[ "${2:-}" = "--quiet" ] && quiet=1
awk -v label="$label" -v quiet="$quiet" '
  /^\[[0-9]+\/[0-9]+\]/ {
    split(substr($1, 2), step, "/");
    tenth = int(10 * step[1] / step[2]);
    if (tenth > shown) {
      shown = tenth;
      printf "%s: build %d%% (%d of %d steps)\n", label, 10 * tenth, step[1], step[2] > "/dev/stderr";
      fflush("/dev/stderr");
    }
    next
  }
  quiet == 0 { print > "/dev/stderr" }'
