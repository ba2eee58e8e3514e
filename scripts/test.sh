#!/usr/bin/env bash
# What CI runs (.ci/run). Checks formatting; builds everything twice: with AddressSanitizer +
# UBSan (preset asan), and as the Debian packages with the tests in the same tree (warnings are
# errors, -DNDEBUG like the ci preset, plus Debian's hardening flags), so the tests of the second
# build run on the packaged binaries. Runs the whole suite under the sanitizers; then runs on
# the package build only what the asan build cannot run: the tests of the fibers-asio plugin,
# which is not built under ASan (plugins/fibers-asio/CMakeLists.txt says why), the tests that
# compare every approach plugin at once, so fibers-asio is compared too, and the tests the asan
# run skipped (those whose premise the sanitizers' runtime breaks, e.g. a process without a
# free descriptor). Running the whole suite twice took CI over 25 minutes here. Last, the
# package checks (packaging/check-debs.sh: lintian, file lists, units, a run from the extracted
# packages, the plugin templates built against the extracted SDK) and an install, serve, run
# and purge in a clean Debian 12 root (packaging/test-install.sh, from the Debian mirror).
# Installs the Debian packages it needs first.
# Usage: scripts/test.sh [ctest args for both runs, e.g. -R Conformance]
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

source scripts/ccache-env.sh

# Tests on the package build that compare every approach plugin in one test; the asan build runs
# them without fibers-asio.
# The plugin templates' out-of-tree test: the package checks do the same against the extracted
# benchd-plugin-dev (packaging/try-plugin-template.sh), so the package build skips it.
done_by_package_checks='^PluginTemplates[.]'
every_plugin_tests='^(PluginCatalog[.]AcceptsEveryBuiltApproachPlugin|BenchdRun[.]RunsTheCiScenariosOverEveryPlugin|MemoryDenyWriteExecute[.]ARunOverEveryPlugin)'

# Prints "number<TAB>name" for each test ctest lists with the given arguments.
list_tests() {
  ctest "$@" -N | sed -n 's/^ *Test *#\([0-9]*\): \(.*\)$/\1\t\2/p'
}

start=$(date +%s)
echo "== format check"
scripts/check-format.sh
echo "== configure and build (preset asan)"
cmake --preset asan >/dev/null
cmake --build --preset asan
echo "== build the Debian packages with the tests (packaging/build-debs.sh --with-tests)"
packaging/build-debs.sh --worktree --with-tests
package_tree=$(ls -d build/debs/src/benchd-*/obj-*)
package_ctest=(--test-dir "$package_tree" --output-on-failure --no-tests=error --timeout 600)
echo "== test: the whole suite under AddressSanitizer + UBSan (preset asan)"
asan_log=$(mktemp)
trap 'rm -f "$asan_log"' EXIT
ctest --preset asan -j2 "$@" | tee "$asan_log"
# The names of the tests the asan run skipped, from its "Test #N: NAME ....***Skipped" lines.
skipped_in_asan() {
  sed -n 's/^.*Test *#[0-9]*: \(.*\)\*\*\*Skipped.*$/\1/p' "$asan_log" | sed 's/ *\.* *$//'
}

echo "== test (package build): what the asan build lacks or skipped, and the tests comparing every plugin"
# ctest -I takes "start,end,stride,number,number...": with start 0 only the listed numbers run.
numbers=$(awk -F '\t' -v every="$every_plugin_tests" -v done_later="$done_by_package_checks" \
  'FILENAME == ARGV[1] { skipped[$0] = 1; next }
   FILENAME == ARGV[2] { in_asan[$2] = 1; next }
   $2 ~ done_later { next }
   !($2 in in_asan) || ($2 in skipped) || $2 ~ every { print $1 }' \
  <(skipped_in_asan) <(list_tests --preset asan "$@") <(list_tests "${package_ctest[@]}" "$@") |
  paste -sd, -)
if [ -z "$numbers" ]; then
  echo "none"
else
  echo "$(tr ',' '\n' <<<"$numbers" | wc -l) tests"
  ctest "${package_ctest[@]}" -j2 -I "0,0,0,$numbers"
fi
echo "== package checks"
packaging/check-debs.sh
echo "== the packages installed into a clean Debian 12 root, served, run and purged"
packaging/test-install.sh
echo "== build and tests took $(($(date +%s) - start)) s"
