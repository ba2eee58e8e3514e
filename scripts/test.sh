#!/usr/bin/env bash
# Checks formatting, builds everything with the `ci` preset (warnings are errors) and runs
# every test; then builds everything with AddressSanitizer + UBSan (preset asan) and runs the
# whole suite again under them (fibers-asio is not built there: plugins/fibers-asio/CMakeLists.txt
# says why). ThreadSanitizer runs by hand: scripts/tsan.sh.
# Installs the Debian packages it needs first. Usage: scripts/test.sh [ctest args for the ci run]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

source scripts/ccache-env.sh

start=$(date +%s)
echo "== format check"
scripts/check-format.sh
echo "== configure (preset ci)"
cmake --preset ci >/dev/null
echo "== build"
cmake --build --preset ci
echo "== test"
ctest --preset ci -j2 "$@"
echo "== sanitizers: the whole suite under AddressSanitizer + UBSan (preset asan)"
cmake --preset asan >/dev/null
cmake --build --preset asan
ctest --preset asan -j2
echo "== build and tests took $(( $(date +%s) - start )) s"
