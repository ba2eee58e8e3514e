#!/usr/bin/env bash
# Does with a plugin template what its README tells an author to do, outside the source tree:
# copies it into an empty folder, builds it with CMake against a BenchdPluginSdk package, lists
# it with `benchd plugins --plugin-dir`, checks it with `benchd verify-plugin`, and includes it
# in a short `benchd run`. Used by packaging/check-debs.sh (against the extracted
# benchd-plugin-dev package) and by a ctest (against the build tree's <build>/sdk-package).
#
# Usage: packaging/try-plugin-template.sh TEMPLATE_DIR SDK_PACKAGE_DIR BENCHD WORK_DIR
#   TEMPLATE_DIR     e.g. /usr/share/benchd/plugin-templates/c
#   SDK_PACKAGE_DIR  the folder holding BenchdPluginSdkConfig.cmake
#   BENCHD           the benchd executable to list, verify and run with
#   WORK_DIR         an empty or missing folder for the copy, the build and the results
set -euo pipefail
if [ $# -ne 4 ]; then
  sed -n '8,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
template=$(realpath "$1") sdk=$(realpath "$2") benchd=$(realpath "$3") work=$(realpath -m "$4")
say() { echo "try-plugin-template: $*"; }

mkdir -p "$work"
author=$work/$(basename "$template")
rm -rf "$author"
cp -r "$template" "$author"
say "building $(basename "$template") against $sdk"
if ! { cmake -S "$author" -B "$author/build" -G Ninja -DBenchdPluginSdk_DIR="$sdk" &&
       cmake --build "$author/build"; } >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  say "the template does not build" >&2
  exit 1
fi
plugins=("$author"/build/*.so)
[ ${#plugins[@]} -eq 1 ] && [ -f "${plugins[0]}" ] || { say "expected one plugin in $author/build" >&2; exit 1; }
plugin=${plugins[0]}
name=$(basename "$plugin" .so)

say "benchd plugins --plugin-dir $author/build"
listing=$("$benchd" plugins --plugin-dir "$author/build")
if ! grep -q "^  $name .*$plugin\$" <<<"$listing"; then
  echo "$listing" >&2
  say "benchd plugins does not accept $name from $author/build" >&2
  exit 1
fi

say "benchd verify-plugin $plugin"
"$benchd" verify-plugin "$plugin"

say "benchd run scenarios-ci.csv -a $name --repeat 1 (1 s per row)"
"$benchd" run scenarios-ci.csv --repeat 1 --plugin-dir "$author/build" -a "$name" -w 0 -t 1 \
  -o "$work/results" >"$work/run.log" 2>&1 || { cat "$work/run.log" >&2; say "the run failed" >&2; exit 1; }
# Columns 3 and 4 of results.csv: requests_ok and requests_error. A failed row (the worker did
# not start, answered wrongly, died) has no successful request and at least one error.
csv=$work/results/scenarios-ci/results.csv
rows=$(($(wc -l <"$csv") - 1))
bad=$(awk -F, 'NR > 1 && ($3 == 0 || $4 != 0)' "$csv" | wc -l)
say "$name: $rows rows in results.csv, $bad with errors or without a successful request"
if [ "$rows" -eq 0 ] || [ "$bad" -ne 0 ]; then
  cat "$csv" "$work/run.log" >&2
  exit 1
fi
