#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine, in one command: installs what benchd needs, builds
# benchd, benchd-worker, every approach plugin and the chart renderer (benchd-report, so
# results.md gets its charts), then runs `benchd run` with the arguments given (default:
# scenarios-quick.csv against every plugin, results in ./results/).
#
# Usage: scripts/run.sh [benchd run arguments...]
#   scripts/run.sh                               # scenarios-quick.csv, every approach
#   scripts/run.sh scenarios-ci.csv -a callbacks-asio,fibers-asio
#   scripts/run.sh scenarios-default.csv --plan  # what the full study would take
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
source scripts/ccache-env.sh
cmake --preset dev >/dev/null
echo "run: building benchd, benchd-worker, the approach plugins and the chart renderer" >&2
# A first build takes several minutes on two cores: one line per tenth of it, and whatever the
# compiler says in full.
cmake --build --preset dev --target benchd_runtime | scripts/build-progress.sh run
exec build/dev/bin/benchd run "$@"
