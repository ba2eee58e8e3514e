#!/usr/bin/env bash
# Builds everything with ThreadSanitizer (preset tsan), runs the whole suite under it and
# reports what TSan found: each report is written to build/tsan/tsan-reports/ (one file per
# process, the workers and plugins included), and the summary lists every distinct report by
# its SUMMARY line with its count. Known false positives are suppressed in tests/tsan.supp, each
# with its reason. Not part of CI: a Debug build of everything takes over 20 minutes here with a
# cold ccache (as the asan build does), and tests run several times slower under TSan.
# Exit status: 0 when every test passed and no report was written, 1 otherwise.
# Usage: scripts/tsan.sh [ctest args, e.g. -R Conformance]
# BENCHD_TSAN_TARGETS="a b" builds only those targets (give the ctest args that select their
# tests), e.g. BENCHD_TSAN_TARGETS="benchd_conformance_tests" scripts/tsan.sh -L conformance
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
source scripts/ccache-env.sh

reports="$PWD/build/tsan/tsan-reports"
echo "== configure (preset tsan)"
cmake --preset tsan >/dev/null
echo "== build"
if [ -n "${BENCHD_TSAN_TARGETS:-}" ]; then
  # shellcheck disable=SC2086 # a list of target names
  cmake --build --preset tsan --target $BENCHD_TSAN_TARGETS
else
  cmake --build --preset tsan
fi
rm -rf "$reports"
mkdir -p "$reports"
# halt_on_error=0: a race is reported and the process goes on, so one run finds them all.
# exitcode=0: a report alone does not change a process's exit status (a worker exiting 66 would
# fail tests for reasons the summary already gives); the reports are counted below instead.
export TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp log_path=$reports/tsan halt_on_error=0 exitcode=0 second_deadlock_stack=1 history_size=4"
# Left out: tests bounded by how long benchd-report takes, whose Qt painting under TSan takes
# longer than those bounds here (gui_report_test: benchd-report "did not finish within" its
# bound of 60 s plus 10 s per chart; the daemon's SIGTERM test: a stopped run still renders its
# charts, and the daemon had not exited 30 s after SIGTERM). Their code runs under TSan in the
# other run and chart tests.
slow_under_tsan='^(gui_report_test|BenchdServeRobustness[.]SigtermDuringARunStopsItCleanly)$'
echo "== test (TSAN_OPTIONS=$TSAN_OPTIONS)"
status=0
ctest --preset tsan -j2 -E "$slow_under_tsan" "$@" || status=1

echo "== ThreadSanitizer reports"
shopt -s nullglob
files=("$reports"/tsan.*)
if [ ${#files[@]} -eq 0 ]; then
  echo "none"
else
  echo "${#files[@]} processes wrote reports ($reports):"
  grep -h "^SUMMARY: ThreadSanitizer" "${files[@]}" | sort | uniq -c | sort -rn || true
  # A file without a SUMMARY line (a fatal error of the TSan runtime) shows its first lines.
  while IFS= read -r file; do
    echo "-- $file has no SUMMARY line:"
    head -n 3 "$file"
  done < <(grep -L "^SUMMARY: ThreadSanitizer" "${files[@]}" || true)
  status=1
fi
exit "$status"
