#!/usr/bin/env bash
# Hosts for tests on one machine: network namespaces joined by veth links to a bridge that
# lives in a namespace of its own, with addresses from 198.18.0.0/24 (RFC 2544's range for
# benchmark networks). Nothing is routed anywhere else: each network is sealed, so concurrent
# tests may reuse the same addresses; only the namespace names differ (NAME carries a pid).
#
# Usage: tests/support/test-network.sh up NAME HOST:OCTET...   e.g. up bdt123 coord:1 gen-1:11
#        tests/support/test-network.sh down NAME               removes NAME-*; idempotent
#        tests/support/test-network.sh exec NAME HOST CMD...   runs CMD in NAME-HOST
#        tests/support/test-network.sh sweep                   removes bdt<pid>* of dead pids
#
# Host HOST gets namespace NAME-HOST, loopback up, eth0 with 198.18.0.OCTET/24, and a higher
# somaxconn (it is per namespace). Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN).
set -euo pipefail

die() {
  echo "test-network: $*" >&2
  exit 1
}

namespaces_of() {
  ip netns list | awk '{ print $1 }' | grep -E "^$1-" || true
}

down() {
  local namespace
  for namespace in $(namespaces_of "$1"); do
    ip netns delete "$namespace" 2>/dev/null || true
  done
}

sweep() {
  local namespace pid
  for namespace in $(ip netns list | awk '{ print $1 }' | grep -E '^bdt[0-9]+' || true); do
    pid=$(sed -E 's/^bdt([0-9]+).*$/\1/' <<<"$namespace")
    kill -0 "$pid" 2>/dev/null || ip netns delete "$namespace" 2>/dev/null || true
  done
}

up() {
  local name=$1 spec host octet index=0
  shift
  [[ "$name" =~ ^[a-z0-9]+$ ]] || die "NAME must be lower-case letters and digits, got '$name'"
  [ $# -gt 0 ] || die "up needs at least one HOST:OCTET"
  down "$name"
  ip netns add "$name-sw"
  ip -n "$name-sw" link add br0 type bridge
  ip -n "$name-sw" link set br0 up
  ip -n "$name-sw" link set lo up
  for spec in "$@"; do
    host=${spec%%:*}
    octet=${spec#*:}
    [[ "$host" =~ ^[a-z0-9-]+$ && "$octet" =~ ^[0-9]+$ && "$octet" -ge 1 && "$octet" -le 254 ]] ||
      die "expected HOST:OCTET (1 to 254), got '$spec'"
    index=$((index + 1))
    ip netns add "$name-$host"
    ip link add "v$index" netns "$name-sw" type veth peer name eth0 netns "$name-$host"
    ip -n "$name-sw" link set "v$index" master br0
    ip -n "$name-sw" link set "v$index" up
    ip -n "$name-$host" link set lo up
    ip -n "$name-$host" addr add "198.18.0.$octet/24" dev eth0
    ip -n "$name-$host" link set eth0 up
    ip netns exec "$name-$host" sysctl -q -w net.core.somaxconn=4096
  done
}

case "${1:-}" in
  up)
    shift
    up "$@"
    ;;
  down)
    [ $# -eq 2 ] || die "usage: down NAME"
    down "$2"
    ;;
  exec)
    [ $# -ge 4 ] || die "usage: exec NAME HOST CMD..."
    namespace="$2-$3"
    shift 3
    exec ip netns exec "$namespace" "$@"
    ;;
  sweep)
    sweep
    ;;
  *)
    die "usage: up NAME HOST:OCTET... | down NAME | exec NAME HOST CMD... | sweep"
    ;;
esac
