#!/usr/bin/env bash
# Builds benchd's Debian packages (benchd, benchd-report, benchd-gui, benchd-plugin-dev and the
# -dbgsym packages) with debhelper from a clean export of the tree, and prints where they are.
#
# Usage: packaging/build-debs.sh [--worktree] [--with-tests] [--out DIR]
#   --worktree    export the working tree as it is (tracked and untracked files that git does
#                 not ignore) instead of the last commit (HEAD), to try uncommitted changes
#   --with-tests  also build the tests and micro-benchmarks in the same tree, with warnings as
#                 errors (what CI does: it then runs the tests on the packaged binaries; the
#                 tree is build/debs/src/benchd-VERSION/obj-<triplet>)
#   --out DIR     where the .deb files go (default: build/debs)
#
# The export goes to a fixed folder (build/debs/src), so ccache finds its objects again from one
# build to the next; the compile flags are dpkg-buildflags' (hardening) plus -DNDEBUG.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

from_worktree=false
out=build/debs
while [ $# -gt 0 ]; do
  case "$1" in
    --worktree) from_worktree=true ;;
    --with-tests)
      export BENCHD_CMAKE_ARGS="-DBENCHD_BUILD_TESTS=ON -DBENCHD_BUILD_BENCHMARKS=ON -DBENCHD_WARNINGS_AS_ERRORS=ON" ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-debs: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

# The build dependencies (debian/control's Build-Depends) and the packaging tools.
scripts/install-deps.sh debhelper dpkg-dev fakeroot

version=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
src_parent=$root/build/debs/src
src=$src_parent/benchd-$version
rm -rf "$src_parent"
mkdir -p "$src" "$out"
if $from_worktree; then
  echo "build-debs: exporting the working tree"
  git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c \
    'test -e "{}" && printf "%s\0" "{}"' | tar --null -T - -cf - | tar -xf - -C "$src"
else
  echo "build-debs: exporting $(git rev-parse --short HEAD)"
  git archive --format=tar HEAD | tar -xf - -C "$src"
fi
cp -r "$src/packaging/debian" "$src/debian"

source scripts/ccache-env.sh
export CCACHE_BASEDIR=$src
start=$(date +%s)
echo "build-debs: building in $src (compiler output in $src_parent/build.log)"
# The full log goes to build.log; the terminal gets one line per tenth of the compile.
if ! (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
        dpkg-buildpackage -b -uc -us 2>&1 | tee "$src_parent/build.log" |
        "$root/scripts/build-progress.sh" build-debs --quiet; exit "${PIPESTATUS[0]}"); then
  tail -n 60 "$src_parent/build.log" >&2
  echo "build-debs: the package build failed; the whole log is $src_parent/build.log" >&2
  exit 1
fi
rm -f "$out"/*.deb
mv "$src_parent"/*.deb "$out"/
cp "$src_parent"/*.changes "$out"/ 2>/dev/null || true
echo "build-debs: built in $(($(date +%s) - start)) s (build tree: $src/obj-$(dpkg-architecture -qDEB_HOST_MULTIARCH)):"
for deb in "$out"/*.deb; do
  printf '  %s  %s\n' "$(du -h "$deb" | cut -f1)" "$deb"
done
