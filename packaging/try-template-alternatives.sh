#!/usr/bin/env bash
# The C plugin template changed as an author outside the project may change it, one choice the
# contract leaves open at a time, each built against a BenchdPluginSdk package and checked with
# `benchd verify-plugin` on the rules that choice touches (CONTRACT.md sections 1 and 7):
#
#   closes-incomplete   closes without an answer where the template answers an incomplete
#                       request 400 (the whole hostile corpus, the framing and lifetime rules:
#                       all must pass)
#   profiles-left-null  a 2.0 plugin's descriptor rebuilt against the 2.1 header, its
#                       implemented_profiles left NULL: still implements no-keep-alive, and
#                       connections.no-keep-alive must pass
#   no-profiles         lists no optional profile: connections.no-keep-alive is skipped, said
#                       so, and the check still passes
#
# Used by packaging/check-debs.sh (against the extracted benchd-plugin-dev) and by a ctest
# (against the build tree's <build>/sdk-package).
#
# Usage: packaging/try-template-alternatives.sh TEMPLATE_DIR SDK_PACKAGE_DIR BENCHD WORK_DIR
#   TEMPLATE_DIR     the C template, e.g. /usr/share/benchd/plugin-templates/c
#   SDK_PACKAGE_DIR  the folder holding BenchdPluginSdkConfig.cmake
#   BENCHD           the benchd executable to verify with
#   WORK_DIR         an empty or missing folder for the copies, builds and reports
set -euo pipefail
if [ $# -ne 4 ]; then
  sed -n '18,22p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
template=$(realpath "$1") sdk=$(realpath "$2") benchd=$(realpath "$3") work=$(realpath -m "$4")
say() { echo "try-template-alternatives: $*"; }
die() { say "$*" >&2; exit 1; }

# Replaces, in FILE, every line equal to OLD (leading blanks aside) by NEW (indented alike;
# empty: the line goes); fails unless exactly COUNT lines matched, so a changed template stops
# the check instead of silently checking the template itself.
replace_line() {
  local file=$1 old=$2 new=$3 count=$4 found
  found=$(OLD="$old" awk '{ sub(/^[ \t]+/, "") } $0 == ENVIRON["OLD"]' "$file" | wc -l)
  [ "$found" -eq "$count" ] ||
    die "$(basename "$file"): expected $count line(s) '$old', found $found (the template changed)"
  OLD="$old" NEW="$new" awk '{
      line = $0; sub(/^[ \t]+/, "", line)
      if (line != ENVIRON["OLD"]) { print; next }
      if (ENVIRON["NEW"] == "") next
      indent = $0; sub(/[^ \t].*$/, "", indent); print indent ENVIRON["NEW"]
    }' "$file" >"$file.new"
  mv "$file.new" "$file"
}

# Copies the template to WORK/NAME; prints the copy's folder.
copy_template() {
  local copy=$work/$1
  rm -rf "$copy"
  cp -r "$template" "$copy"
  echo "$copy"
}
# Builds the copy COPY; prints the plugin's path.
build_copy() {
  local copy=$1 plugins
  if ! { cmake -S "$copy" -B "$copy/build" -G Ninja -DBenchdPluginSdk_DIR="$sdk" &&
         cmake --build "$copy/build"; } >"$copy.build.log" 2>&1; then
    cat "$copy.build.log" >&2
    die "$(basename "$copy") does not build"
  fi
  plugins=("$copy"/build/*.so)
  [ ${#plugins[@]} -eq 1 ] && [ -f "${plugins[0]}" ] || die "expected one plugin in $copy/build"
  echo "${plugins[0]}"
}

# Runs verify-plugin on PLUGIN with the remaining arguments; fails unless it exits 0, and
# prints its report to WORK/NAME.txt.
verify_variant() {
  local name=$1 plugin=$2
  shift 2
  say "$name: benchd verify-plugin $* ($(basename "$plugin"))"
  if ! "$benchd" verify-plugin "$plugin" "$@" >"$work/$name.txt" 2>&1; then
    cat "$work/$name.txt" >&2
    die "$name: verify-plugin failed a rule the contract lets this plugin break"
  fi
  grep -E 'rules? passed' "$work/$name.txt" | sed "s/^/  $name: /"
}
expect_line() {
  local name=$1 pattern=$2
  grep -qE "$pattern" "$work/$name.txt" || { cat "$work/$name.txt" >&2; die "$name: no line matching '$pattern'"; }
}

mkdir -p "$work"

copy=$(copy_template closes-incomplete)
replace_line "$copy/src/plugin.c" 'return more == 0 && c->input_size > 0 ? 400 : -1;' 'return -1;' 1
replace_line "$copy/src/plugin.c" 'return more == 0 ? 400 : -1;' 'return -1;' 1
plugin=$(build_copy "$copy")
verify_variant closes-incomplete "$plugin" --full-corpus --rule hostile --rule framing --rule lifetime
expect_line closes-incomplete '^PASS  hostile\.first-answers '

copy=$(copy_template profiles-left-null)
replace_line "$copy/src/plugin.c" 'static const char* const implemented_profiles[] = {"no-keep-alive"};' '' 1
replace_line "$copy/src/plugin.c" '.implemented_profiles = implemented_profiles,' '' 1
replace_line "$copy/src/plugin.c" \
  '.implemented_profile_count = sizeof implemented_profiles / sizeof implemented_profiles[0],' '' 1
plugin=$(build_copy "$copy")
verify_variant profiles-left-null "$plugin" --rule connections
expect_line profiles-left-null '^PASS  connections\.no-keep-alive '

copy=$(copy_template no-profiles)
replace_line "$copy/src/plugin.c" \
  '.implemented_profile_count = sizeof implemented_profiles / sizeof implemented_profiles[0],' \
  '.implemented_profile_count = 0,' 1
plugin=$(build_copy "$copy")
verify_variant no-profiles "$plugin" --rule connections
expect_line no-profiles '^SKIP  connections\.no-keep-alive '
expect_line no-profiles 'passed, 1 skipped'
say "every alternative passed"
