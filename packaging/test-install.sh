#!/usr/bin/env bash
# Installs the packages into a clean Debian 12 root (mmdebstrap, from the Debian mirror) with
# only their declared dependencies, then, inside it: `benchd plugins`, `benchd serve` on
# loopback with a curl of /api/v1/health, a plugin dropped into /usr/local/lib/benchd/plugins
# offered by the daemon's rescan and a short run through the API (which runs it), and a postgres
# row on the private cluster the daemon starts (PostgreSQL 15, which benchd Recommends, installed
# too); then removes and purges every benchd package and checks that nothing of benchd is left
# behind.
# Needs root (or working user namespaces) and the Debian mirror; takes a few minutes.
# Usage: packaging/test-install.sh [DEB_FOLDER]   (default: build/debs)
set -euo pipefail
cd "$(dirname "$0")/.."
debs=$(realpath "${1:-build/debs}")
scripts/install-deps.sh mmdebstrap curl

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$debs"/benchd_*.deb "$debs"/benchd-report_*.deb "$debs"/benchd-gui_*.deb \
   "$debs"/benchd-plugin-dev_*.deb "$work/"
mode=root
[ "$(id -u)" -eq 0 ] || mode=unshare

# Runs inside the new root after the packages are installed (the customize hook).
cat >"$work/inside.sh" <<'INSIDE'
set -euo pipefail
step() { echo "== test-install: $*"; }
# The real packages (dpkg-query also lists the virtual benchd-plugin-abi-2).
installed() { dpkg-query -W -f '${Status} ${Package} ${Version}\n' 'benchd*' | awk '$3 == "installed" { print $4, $5 }'; }
step "installed: $(installed | paste -sd, | sed 's/,/, /g')"
step "benchd plugins"
benchd plugins
step "benchd serve on loopback"
export HOME=/root XDG_STATE_HOME=/root/state
benchd serve --config /etc/benchd/benchd.conf >/tmp/serve.log 2>&1 &
serve=$!
# A failed step exits the script: the daemon must not outlive it (and keep the root's mounts busy).
trap 'kill "$serve" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  curl -fsS http://127.0.0.1:7878/api/v1/health >/tmp/health.json 2>/dev/null && break
  sleep 0.1
done
cat /tmp/health.json; echo
token=$(cat /root/state/benchd/token)
step "a plugin dropped into /usr/local/lib/benchd/plugins: the daemon's rescan offers it"
# A copy of a packaged plugin under another file name stands in for a locally built one; the
# local folder is searched before the packaged plugins, so the copy provides the name.
mkdir -p /usr/local/lib/benchd/plugins
cp /usr/lib/*/benchd/plugins/threads-poco.so /usr/local/lib/benchd/plugins/threads-poco.so
curl -fsS -X POST -H "Authorization: Bearer $token" \
  http://127.0.0.1:7878/api/v1/approaches/rescan >/tmp/rescan.json
grep -q '"/usr/local/lib/benchd/plugins/threads-poco.so"' /tmp/rescan.json ||
  { echo "test-install: the rescan did not offer the local plugin:"; cat /tmp/rescan.json; exit 1; }
echo "threads-poco now from /usr/local/lib/benchd/plugins"
# Starts the run REQUEST (JSON) through the API and waits for its end; sets run_url and state.
run_through_api() {
  curl -fsS -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "$1" http://127.0.0.1:7878/api/v1/runs >/tmp/run.json
  cat /tmp/run.json; echo
  run_url=$(sed -n 's/.*"id": *\([0-9]*\).*/\/api\/v1\/runs\/\1/p' /tmp/run.json | head -n 1)
  state=""
  for _ in $(seq 1 600); do
    state=$(curl -fsS -H "Authorization: Bearer $token" "http://127.0.0.1:7878$run_url" |
      sed -n 's/.*"status": *"\([a-z]*\)".*/\1/p' | head -n 1)
    case "$state" in completed|stopped|failed|interrupted) break ;; esac
    sleep 1
  done
  echo "run $run_url: $state"
  [ "$state" = completed ] || { cat /tmp/serve.log; exit 1; }
}
step "a short run through the API"
run_through_api '{"repeat": 1, "scenarioFile": "scenarios-ci.csv", "approaches": ["callbacks-asio", "threads-poco"], "warmupSeconds": 0, "testSeconds": 2}'
step "a postgres row through the API: the daemon starts a private PostgreSQL 15 cluster"
printf '%s\n' \
  'scenario,k6Config,serverProfiles,delayCallDepth,delayInMillis,connections,requestsPerSecond,warmupDurationInSeconds,testDurationInSeconds' \
  'pg,get-movies.js,postgres|no-cache,0,0,4,,0,2' |
  curl -fsS -X PUT -H "Authorization: Bearer $token" -H 'Content-Type: text/csv' --data-binary @- \
    http://127.0.0.1:7878/api/v1/scenario-files/pg.csv >/dev/null
run_through_api '{"repeat": 1, "scenarioFile": "pg.csv", "approaches": ["callbacks-asio"]}'
curl -fsS -H "Authorization: Bearer $token" "http://127.0.0.1:7878$run_url/results" >/tmp/results.json
for expected in '"requests_error":0(\.0)?[,}]' '"databaseSampled":true'; do
  grep -Eq "$expected" /tmp/results.json ||
    { echo "test-install: the postgres row's results lack $expected:"; cat /tmp/results.json; exit 1; }
done
echo "the postgres row: 0 errors, its database sampled"
kill "$serve"; wait "$serve" || true
step "remove and purge"
rm -rf /root/state /usr/local/lib/benchd
installed | cut -d' ' -f1 | xargs dpkg --purge
leftovers=$(find / -xdev \( -path /proc -o -path /sys -o -path /dev \) -prune -o \
  -name '*benchd*' -print | grep -v '^/tmp/' || true)
if [ -n "$leftovers" ]; then
  echo "test-install: left behind after the purge:"; echo "$leftovers"; exit 1
fi
step "nothing of benchd is left after the purge"
INSIDE

echo "test-install: creating a Debian 12 root with the packages ($mode mode)"
start=$(date +%s)
mmdebstrap --mode="$mode" --variant=apt --quiet \
  --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
  --include="curl,ca-certificates,postgresql-15,$(cd "$work" && ls ./*.deb | sed "s|^\./|$work/|" | paste -sd,)" \
  --customize-hook="copy-in $work/inside.sh /tmp" \
  --customize-hook='chroot "$1" bash /tmp/inside.sh' \
  bookworm "$work/root.tar"
echo "test-install: passed in $(($(date +%s) - start)) s"
