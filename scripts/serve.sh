#!/usr/bin/env bash
# Builds benchd and serves the benchmark microservice through one approach plugin on
# 127.0.0.1, until Ctrl-C: for poking one approach with curl or another load tool. The main
# job, a scenario file against every approach, is scripts/run.sh.
#
# Usage: scripts/serve.sh [plugin] [port] [extra benchd-worker args...]
#   plugin  approach plugin name (default callbacks-asio)
#   port    TCP port (default 8080)
# Try:  curl 'http://127.0.0.1:8080/callbacks-asio/movies?directorLastName=Allen&delayCallDepth=0&delayInMillis=0'
set -euo pipefail
cd "$(dirname "$0")/.."
plugin="${1:-callbacks-asio}"
port="${2:-8080}"
shift $(( $# > 2 ? 2 : $# ))

scripts/install-deps.sh
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
cmake --preset dev >/dev/null
cmake --build --preset dev --target benchd-worker all >/dev/null

plugin_path="build/dev/plugins/${plugin}.so"
if [ ! -f "$plugin_path" ]; then
  echo "serve: no plugin '${plugin}' (have: $(cd build/dev/plugins && ls *.so | sed 's/\.so$//' | tr '\n' ' '))" >&2
  exit 2
fi
echo "serve: ${plugin} on http://127.0.0.1:${port}/${plugin}/ (Ctrl-C stops it)" >&2
echo "serve: try curl 'http://127.0.0.1:${port}/${plugin}/movies?directorLastName=Allen&delayCallDepth=0&delayInMillis=0'" >&2
exec build/dev/bin/benchd-worker --plugin "$plugin_path" --port "$port" "$@"
