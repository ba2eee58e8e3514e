#!/usr/bin/env bash
# Installs the Debian 12 packages benchd needs to build and test.
# Idempotent: packages already present are skipped, and `apt-get update` runs at
# most once per invocation, only when something is missing.
# Usage: scripts/install-deps.sh [extra-package ...]
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config git curl
  clang-format clang-tidy
  libboost1.81-dev libboost-fiber1.81-dev libboost-context1.81-dev libboost-url1.81-dev
  libpoco-dev libsqlite3-dev rapidjson-dev libcurl4-openssl-dev libcpp-httplib-dev
  libssl-dev openssl libnghttp2-dev nghttp2-client libmicrohttpd-dev libh2o-evloop-dev
  postgresql-15 libpq-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-yaml python3-jsonschema iproute2
  qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev fonts-dejavu-core
  "$@"
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi

echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
