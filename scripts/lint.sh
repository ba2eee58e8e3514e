#!/usr/bin/env bash
# Runs clang-tidy (config: .clang-tidy) over the project's C++ sources, using the compile
# commands of the `dev` preset. Usage: scripts/lint.sh [files...]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset dev >/dev/null
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files -- 'daemon/*.cpp' 'plugins/*.cpp')
fi
clang-tidy -p build/dev --quiet "${files[@]}"
