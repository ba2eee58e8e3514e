#!/usr/bin/env bash
# Fails when a C or C++ source differs from .clang-format. `--fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=(--dry-run --Werror)
if [ "${1:-}" = "--fix" ]; then mode=(-i); fi
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.cpp' '*.hpp' | sort -u)
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done
clang-format "${mode[@]}" "${existing[@]}"
echo "check-format: ${#existing[@]} files ok"
