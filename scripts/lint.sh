#!/usr/bin/env bash
# Runs clang-tidy (config: .clang-tidy) over the project's C++ sources. Uses its own build tree
# (build/tidy) configured without precompiled headers, since clang cannot read g++'s.
# Usage: scripts/lint.sh [files...]   (default: every .cpp under daemon/, plugins/ and gui/)
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/tidy -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
# Generated sources (embedded seed data, plugin lists) must exist before tidy reads them.
ninja -C build/tidy benchd_microservice >/dev/null
# Qt's moc output, which the GUI sources include, likewise (when Qt is there).
ninja -C build/tidy -t targets all 2>/dev/null | grep -o '^[a-z_]*_autogen' | sort -u |
  xargs -r ninja -C build/tidy >/dev/null
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- 'daemon/*.cpp' 'plugins/*.cpp' 'gui/*.cpp')
fi
status=0
for file in "${files[@]}"; do
  echo "clang-tidy: $file" >&2
  clang-tidy -p build/tidy --quiet "$file" 2>/dev/null || status=1
done
exit $status
