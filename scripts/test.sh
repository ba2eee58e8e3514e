#!/usr/bin/env bash
# Builds everything with the `ci` preset (warnings are errors), checks formatting and runs
# every test; then builds the unit suites with AddressSanitizer + UBSan and runs them again.
# Installs the Debian packages it needs first. Usage: scripts/test.sh [ctest args for the ci run]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

# ccache and precompiled headers: let ccache reuse PCH-built objects.
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
# Paths under the checkout are hashed relative to it, so a fresh clone elsewhere (as CI makes)
# reuses the objects an earlier clone compiled.
export CCACHE_BASEDIR="$PWD"

start=$(date +%s)
echo "== format check"
scripts/check-format.sh
echo "== configure (preset ci)"
cmake --preset ci >/dev/null
echo "== build"
cmake --build --preset ci
echo "== test"
ctest --preset ci -j2 "$@"
echo "== sanitizers: the unit suites under AddressSanitizer + UBSan (preset asan)"
cmake --preset asan >/dev/null
cmake --build --preset asan --target benchd_unit_suites
ctest --preset asan -L unit -j2
echo "== build and tests took $(( $(date +%s) - start )) s"
