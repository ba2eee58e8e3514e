#!/usr/bin/env bash
# Checks the packages packaging/build-debs.sh built, without installing them (CI runs this):
#   1. lintian --fail-on error,warning on every package (no override is needed today; one that
#      is must name its reason in packaging/debian/<package>.lintian-overrides);
#   2. each package's file list (dpkg-deb -c) against packaging/expected/<package>.files;
#   3. every ELF file: no executable stack (MemoryDenyWriteExecute and lintian need that), no
#      RPATH/RUNPATH;
#   4. the units: systemd-analyze verify, and the system unit's offline security score at most
#      2.0; the desktop entry: desktop-file-validate;
#   5. from the extracted packages: `benchd plugins` and a short `benchd run`; then the plugin
#      templates of benchd-plugin-dev built out of tree against the extracted SDK, listed,
#      verified with `benchd verify-plugin` and run.
# Usage: packaging/check-debs.sh [DEB_FOLDER]   (default: build/debs)
set -euo pipefail
cd "$(dirname "$0")/.."
debs=$(realpath "${1:-build/debs}")
scripts/install-deps.sh lintian desktop-file-utils systemd binutils

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "check-debs: FAIL: $*" >&2; failures=$((failures + 1)); }
step() { echo "== check-debs: $*"; }

packages=(benchd benchd-report benchd-gui benchd-plugin-dev)
deb_of() { ls "$debs"/"$1"_*.deb 2>/dev/null | head -n 1; }
for package in "${packages[@]}"; do
  [ -n "$(deb_of "$package")" ] || { echo "check-debs: no ${package}_*.deb in $debs" >&2; exit 1; }
done
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

step "lintian"
# lintian refuses to run as root unless told; it only reads the packages.
deb_files=()
for package in "${packages[@]}"; do deb_files+=("$(deb_of "$package")"); done
# -I: the info tags too, so the log shows everything lintian said.
if ! lintian --fail-on error,warning --allow-root --tag-display-limit 0 -I "${deb_files[@]}" \
       >"$work/lintian.txt" 2>&1; then
  fail "lintian found errors or warnings"
fi
sed 's/^/  /' "$work/lintian.txt"
[ -s "$work/lintian.txt" ] || echo "  (no tags)"

step "file lists"
for package in "${packages[@]}"; do
  dpkg-deb -c "$(deb_of "$package")" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' |
    grep -v '^/$' | sed "s|/$triplet/|/<triplet>/|" | sort >"$work/$package.files"
  if ! diff -u "packaging/expected/$package.files" "$work/$package.files" >"$work/diff.txt"; then
    fail "$package's files differ from packaging/expected/$package.files:"
    sed 's/^/  /' "$work/diff.txt"
  else
    echo "  $package: $(wc -l <"$work/$package.files") paths as expected"
  fi
done

step "extract"
tree=$work/root
for package in "${packages[@]}"; do
  dpkg-deb -x "$(deb_of "$package")" "$tree"
done

step "ELF files: no executable stack, no RPATH/RUNPATH"
elves=0
while IFS= read -r -d '' file; do
  head -c 4 "$file" | grep -q $'\x7fELF' || continue
  elves=$((elves + 1))
  if readelf -lW "$file" | grep -q 'GNU_STACK.*RWE'; then
    fail "${file#"$tree"} has an executable stack"
  fi
  if readelf -dW "$file" | grep -Eq '\((RPATH|RUNPATH)\)'; then
    fail "${file#"$tree"} has an RPATH/RUNPATH: $(readelf -dW "$file" | grep -E 'R(UN)?PATH')"
  fi
done < <(find "$tree" -type f -print0)
echo "  $elves ELF files checked"

step "units and desktop entry"
system_unit=$tree/lib/systemd/system/benchd.service
user_unit=$tree/usr/lib/systemd/user/benchd.service
# verify needs the ExecStart binary to exist: point it at the extracted one.
for unit in "$system_unit" "$user_unit"; do
  [ -f "$unit" ] || { fail "missing unit ${unit#"$tree"}"; continue; }
  mkdir -p "$work/verify"
  sed "s|ExecStart=/usr/bin/benchd|ExecStart=$tree/usr/bin/benchd|" "$unit" >"$work/verify/benchd.service"
  if systemd-analyze verify --man=no "$work/verify/benchd.service" >"$work/verify.txt" 2>&1; then
    echo "  systemd-analyze verify ${unit#"$tree"}: ok"
  else
    fail "systemd-analyze verify ${unit#"$tree"}:"
    sed 's/^/  /' "$work/verify.txt"
  fi
done
if systemd-analyze security --offline=yes --threshold=20 "$system_unit" >"$work/security.txt" 2>&1; then
  echo "  system unit: $(grep -o 'Overall exposure level for .*' "$work/security.txt")"
else
  fail "the system unit's exposure is above 2.0: $(grep -o 'Overall exposure level.*' "$work/security.txt")"
fi
if desktop-file-validate "$tree/usr/share/applications/benchd-gui.desktop"; then
  echo "  desktop-file-validate: ok"
else
  fail "desktop-file-validate"
fi

step "the extracted benchd: plugins, and a short run"
benchd=$tree/usr/bin/benchd
# Only the extracted tree's plugins, not a locally installed benchd's.
unset BENCHD_PLUGIN_PATH BENCHD_WORKER BENCHD_REPORT
"$benchd" plugins | tee "$work/plugins.txt"
approach_plugins=(callbacks-asio coroutines-asio fibers-asio h2o libmicrohttpd threads-asio threads-poco)
for plugin in "${approach_plugins[@]}"; do
  grep -q "^  $plugin " "$work/plugins.txt" || fail "benchd plugins does not accept $plugin"
done
head -n 2 scenarios/scenarios-ci.csv >"$work/short.csv"
if "$benchd" run "$work/short.csv" --repeat 1 -w 0 -t 2 -o "$work/results" >"$work/run.txt" 2>&1; then
  results=$work/results/short
  # One results.csv line per approach, after the header.
  approaches=$(($(wc -l <"$results/results.csv") - 1))
  echo "  benchd run: $approaches approaches in results.csv, $(find "$results" -name '*.png' | wc -l) charts"
  [ "$approaches" -eq "${#approach_plugins[@]}" ] ||
    fail "results.csv has $approaches approaches, not ${#approach_plugins[@]}"
  [ -f "$results/results.png" ] || fail "benchd-report drew no chart"
else
  fail "benchd run from the extracted tree:"
  tail -n 20 "$work/run.txt" | sed 's/^/  /'
fi

step "plugin templates, out of tree, against the extracted benchd-plugin-dev"
for language in c cpp; do
  if packaging/try-plugin-template.sh "$tree/usr/share/benchd/plugin-templates/$language" \
       "$tree/usr/share/cmake/BenchdPluginSdk" "$benchd" "$work/template-$language" \
       >"$work/template.txt" 2>&1; then
    grep -E '^try-plugin-template: .*rows in results.csv|rules? passed' "$work/template.txt" | sed 's/^/  /'
  else
    fail "the $language template, built out of tree:"
    sed 's/^/  /' "$work/template.txt"
  fi
done

step "the C template changed as the contract allows (packaging/try-template-alternatives.sh)"
if packaging/try-template-alternatives.sh "$tree/usr/share/benchd/plugin-templates/c" \
     "$tree/usr/share/cmake/BenchdPluginSdk" "$benchd" "$work/alternatives" \
     >"$work/alternatives.txt" 2>&1; then
  grep -E 'rules? passed|every alternative' "$work/alternatives.txt" | sed 's/^/  /'
else
  fail "a change of the C template the contract allows fails verify-plugin:"
  sed 's/^/  /' "$work/alternatives.txt"
fi

if [ "$failures" -gt 0 ]; then
  echo "check-debs: $failures check(s) failed" >&2
  exit 1
fi
echo "check-debs: every check passed"
