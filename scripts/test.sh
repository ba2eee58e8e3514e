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

start=$(date +%s)
stage_start=$start
stage_name=""
stage_times=""
# Starts the next stage: prints its header and the seconds the previous one took, and keeps
# them for the closing summary (where CI's time goes).
stage() {
  local now
  now=$(date +%s)
  if [ -n "$stage_name" ]; then
    echo "   ($stage_name: $((now - stage_start)) s)"
    stage_times+="  $((now - stage_start)) s  $stage_name"$'\n'
  fi
  stage_name="$1"
  stage_start=$now
  echo "== $1"
}
stage "install the Debian packages benchd needs (scripts/install-deps.sh)"
scripts/install-deps.sh

source scripts/ccache-env.sh

# Tests on the package build that compare every approach plugin in one test; the asan build runs
# them without fibers-asio.
# The plugin templates' out-of-tree test: the package checks do the same against the extracted
# benchd-plugin-dev (packaging/try-plugin-template.sh), so the package build skips it.
done_by_package_checks='^PluginTemplates[.]'
every_plugin_tests='^(PluginCatalog[.]AcceptsEveryBuiltApproachPlugin|BenchdRun[.]RunsTheCiScenariosOverEveryPlugin|MemoryDenyWriteExecute[.]ARunOverEveryPlugin)'

# No test may leave a process behind (a daemon, a worker, a PostgreSQL cluster of a test): lists
# the processes running a program of this checkout or a cluster in a benchd-postgres- folder,
# twice 5 s apart so that one on its way out is not counted, and fails when any stayed.
leftover_processes() {
  local pid exe args
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    [ "$pid" != "$$" ] || continue
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
    args=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    case "$exe" in
      "$PWD"/*) echo "$pid $args" ;;
      */postgres) case "$args" in *benchd-postgres-*|*benchd-test-*) echo "$pid $args" ;; esac ;;
    esac
  done
  # The multi-host tests' hosts (tests/support/test-network.sh): a namespace left is a leak too.
  if command -v ip >/dev/null 2>&1; then
    ip netns list 2>/dev/null | awk '$1 ~ /^bdt[0-9]/ { print "network namespace " $1 }'
  fi
}
check_no_leftover_processes() {
  local first second
  first=$(leftover_processes | sort)
  [ -n "$first" ] || return 0
  sleep 5
  second=$(comm -12 <(echo "$first") <(leftover_processes | sort))
  if [ -n "$second" ]; then
    echo "processes the tests left behind:" >&2
    echo "$second" >&2
    return 1
  fi
}

# Prints "number<TAB>name" for each test ctest lists with the given arguments.
list_tests() {
  ctest "$@" -N | sed -n 's/^ *Test *#\([0-9]*\): \(.*\)$/\1\t\2/p'
}

stage "format check"
scripts/check-format.sh
stage "configure and build (preset asan)"
cmake --preset asan >/dev/null
cmake --build --preset asan
stage "build the Debian packages with the tests (packaging/build-debs.sh --with-tests)"
packaging/build-debs.sh --worktree --with-tests
package_tree=$(ls -d build/debs/src/benchd-*/obj-*)
package_ctest=(--test-dir "$package_tree" --output-on-failure --no-tests=error --timeout 600)
stage "test: the whole suite under AddressSanitizer + UBSan (preset asan)"
asan_log=$(mktemp)
trap 'rm -f "$asan_log"' EXIT
ctest --preset asan -j2 "$@" | tee "$asan_log"
check_no_leftover_processes
# The names of the tests the asan run skipped, from its "Test #N: NAME ....***Skipped" lines.
skipped_in_asan() {
  sed -n 's/^.*Test *#[0-9]*: \(.*\)\*\*\*Skipped.*$/\1/p' "$asan_log" | sed 's/ *\.* *$//'
}

stage "test (package build): what the asan build lacks or skipped, and the tests comparing every plugin"
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
check_no_leftover_processes
stage "package checks"
packaging/check-debs.sh
stage "the packages installed into a clean Debian 12 root, served, run and purged"
packaging/test-install.sh
stage "done"
echo "== stage times"
printf '%s' "$stage_times"
echo "== build and tests took $(($(date +%s) - start)) s"
