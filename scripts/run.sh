#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine, in one command: installs what benchd needs, builds
# benchd, benchd-worker and every approach plugin, then runs `benchd run` with the arguments
# given (default: scenarios-quick.csv against every plugin, results in ./results/).
#
# Usage: scripts/run.sh [benchd run arguments...]
#   scripts/run.sh                               # scenarios-quick.csv, every approach
#   scripts/run.sh scenarios-ci.csv -a callbacks-asio,fibers-asio
#   scripts/run.sh scenarios-default.csv --plan  # what the full study would take
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
cmake --preset dev >/dev/null
echo "run: building benchd, benchd-worker and the approach plugins" >&2
cmake --build --preset dev --target benchd_runtime >/dev/null
exec build/dev/bin/benchd run "$@"
