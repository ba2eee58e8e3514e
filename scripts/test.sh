#!/usr/bin/env bash
# Checks formatting, builds everything with the `ci` preset (warnings are errors) and runs
# every test; then builds the unit suites with AddressSanitizer + UBSan (preset asan) and runs
# them again. (The whole suite runs under ASan with `ctest --preset asan` after a full asan
# build; it is not yet part of CI: issue 10.)
# Installs the Debian packages it needs first. Usage: scripts/test.sh [ctest args for the ci run]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

# ccache and precompiled headers: let ccache reuse PCH-built objects.
export CCACHE_SLOPPINESS="pch_defines,time_macros,include_file_mtime,include_file_ctime"
# Paths under the checkout are hashed relative to it, and the working directory is left out of
# the hash (ccache adds it for -g builds by default), so a fresh clone elsewhere (as CI makes)
# reuses the objects an earlier clone compiled; its debug info then names the earlier clone's
# paths, which no CI step reads. Two build trees (ci, asan) need more than ccache's default 5 GB.
export CCACHE_BASEDIR="$PWD"
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-16G}"

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
