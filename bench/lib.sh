# shellcheck shell=bash
# bench/lib.sh: the helpers the scripts in bench/ share, each defined once. A script starts
#
#   set -euo pipefail
#   # shellcheck source=bench/lib.sh
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#   cd "$bench_root"
#
# and its head comment holds a "# Usage:" block, which bench_usage prints (-h, --help, and
# after a bad option). Every name defined here starts with bench_ (bench__ for the internal
# ones), so a script's own functions and variables cannot clash with them, except for the few
# globals documented at the function that sets them (preset, build, benchd, worker, work,
# worker_pid; for bench/results: repeat, approach, file, out, overrides, stem).
#
# ---- Stopping what the script started --------------------------------------------------------
# Sourcing this file installs the script's EXIT, INT, TERM and HUP traps: on any exit (the end,
# an error under set -e, exit N, a signal) every process the script registered is stopped
# (bench_stop), then the exit hooks run, last registered first (bench_at_exit: the work
# folder's removal, a setting put back). A signal exit still ends with that signal (the parent
# sees 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP), after the cleanup. A script sets no
# trap of its own: it registers a hook.
#
# The contract for the scripts:
#   - a process started in the background is registered at once, `cmd & bench_track "$!"`, or
#     started by a helper that does (bench_run, bench_start_worker); a daemon that leaves the
#     script's process tree (nginx's master, a PostgreSQL postmaster) is registered by the pid
#     its pid file names.
#   - a long command (a load run, wrk, benchd run, perf) runs through bench_run, not in the
#     foreground: bash runs no trap until a foreground command ends, so a SIGTERM sent to the
#     script alone would wait for it.
#   - nothing that registers a process is called inside $(...): the registration would be the
#     subshell's, lost with it.
# The shell's own children that were not registered are stopped at exit as well (a safety
# net, e.g. a signal between `cmd &` and bench_track); daemons are not its children.
#
# How a stop goes (bench_stop): the registered process gets its stop signal (SIGTERM unless it
# was registered with another) and SIGCONT (a process stopped by SIGSTOP acts on nothing until
# continued). Every process below it, found before that signal, is left to its parent to stop;
# one whose parent has gone (GNU time under a TERM leaves its wrk behind) gets SIGTERM from
# here. Whatever of them all is left after bench_stop_seconds gets SIGKILL and is waited for,
# 5 s at most (a process in uninterruptible sleep is named and left). A number is signalled
# only while it is the process that was registered (its start time is compared), never a later
# process that reused the pid.
#
# Why the process tree and not a process group: benchd puts each worker it spawns in a group
# of its own (daemon/common/src/child_process.cpp), so a group signal would miss exactly the
# workers that outlive a killed `benchd run` or `benchd serve`; the tree finds them wherever
# their group is.

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bench_script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
bench_name=$(basename "$0" .sh)

# How long a stop waits between SIGTERM and SIGKILL: benchd-worker's default stop timeout (10 s,
# --stop-timeout-ms: its requests in flight drain within it), the 5 s after it at which the
# worker ends itself whatever its plugin does (StopWatchdog, daemon/worker/src), and 5 s more,
# so a worker's own bound shows before this one. Override with BENCH_STOP_SECONDS.
bench_stop_seconds=${BENCH_STOP_SECONDS:-20}

# ---- Messages and options ----------------------------------------------------------------------

# bench_log MESSAGE...: prints "NAME: MESSAGE" on stderr, NAME the script's (e.g. high-concurrency).
bench_log() { echo "$bench_name: $*" >&2; }

# bench_die MESSAGE...: bench_log, then exit 1.
bench_die() {
  bench_log "$@"
  exit 1
}

# bench_usage [STATUS]: prints the "# Usage:" block of the script's head comment (from that
# line to the first line that is not "# text") and exits STATUS (default 0): on stdout for 0,
# on stderr otherwise.
bench_usage() {
  local status=${1:-0} text
  text=$(awk '/^# Usage:/ {on = 1} on && !/^# ./ {exit} on {sub(/^# /, ""); print}' \
    "$bench_script")
  if [ "$status" -eq 0 ]; then printf '%s\n' "$text"; else printf '%s\n' "$text" >&2; fi
  exit "$status"
}

# bench_usage_error MESSAGE...: says what was wrong, prints the usage on stderr and exits 2.
bench_usage_error() {
  bench_log "$@"
  bench_usage 2
}

# The options every script that builds takes, set by bench_common_option.
preset=dev        # --preset P: the CMake preset, whose tree is build/P
bench_no_build=0  # --no-build: run the tree as it is (e.g. while the checkout does not compile)
# shellcheck disable=SC2034  # read by the scripts' option loops
bench_shift=0

# bench_common_option ARG...: takes the common option at the head of ARGs (--preset P,
# --no-build, -h/--help) and sets bench_shift to the number of words it took; anything else is
# a usage error. The `*)` branch of a script's option loop:
#   *) bench_common_option "$@"; shift "$bench_shift" ;;
bench_common_option() {
  case "$1" in
    --preset)
      [ $# -ge 2 ] || bench_usage_error "--preset needs a value"
      preset=$2
      bench_shift=2 ;;
    --no-build)
      bench_no_build=1
      # shellcheck disable=SC2034  # read by the scripts' option loops
      bench_shift=1 ;;
    -h | --help) bench_usage 0 ;;
    *) bench_usage_error "unknown option '$1'" ;;
  esac
}

# ---- Tools and the build tree ------------------------------------------------------------------

# bench_require TOOL[=PACKAGE]...: makes sure each TOOL (a command, or an absolute path such as
# /usr/sbin/nginx) can be run; installs the Debian PACKAGE (default: the TOOL's name) of each
# missing one through scripts/install-deps.sh, then dies naming any still missing.
bench_require() {
  local spec tool missing=() packages=()
  for spec in "$@"; do
    tool=${spec%%=*}
    if ! command -v "$tool" >/dev/null; then
      missing+=("$tool")
      packages+=("${spec#*=}")
    fi
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  bench_log "needs ${missing[*]}: installing ${packages[*]}"
  "$bench_root/scripts/install-deps.sh" "${packages[@]}" >&2
  for tool in "${missing[@]}"; do
    command -v "$tool" >/dev/null || bench_die "needs $tool, still missing after install-deps"
  done
}

# bench_cmake ARG...: cmake ARGs, its output on stderr, holding /tmp/benchd-build.lock: the
# machine is shared, and two builds at once would each take twice as long.
bench_cmake() { flock /tmp/benchd-build.lock cmake "$@" >&2; }

# bench_build [TARGET...]: unless the script was given --no-build, brings build/$preset up to
# date for the TARGETs (default benchd_runtime: benchd, benchd-worker, the approach plugins,
# benchd-report; only what a run needs): installs the build's packages
# (scripts/install-deps.sh), configures the preset when it has no tree yet, builds
# (bench_cmake). Then bench_use_tree build/$preset. Call it from $bench_root.
# shellcheck disable=SC2120  # called without TARGETs too: benchd_runtime
bench_build() {
  if [ "$bench_no_build" = 0 ]; then
    scripts/install-deps.sh >&2
    # shellcheck source=scripts/ccache-env.sh
    source scripts/ccache-env.sh
    bench_log "building ${*:-benchd_runtime} in build/$preset"
    [ -f "build/$preset/CMakeCache.txt" ] || bench_cmake --preset "$preset"
    bench_cmake --build --preset "$preset" --target "${@:-benchd_runtime}"
  fi
  bench_use_tree "build/$preset"
}

# bench_use_tree DIR: the build tree the script runs. Sets build (DIR), benchd and worker (its
# bin/benchd and bin/benchd-worker); dies when either is missing.
bench_use_tree() {
  build=$1
  benchd=$build/bin/benchd
  worker=$build/bin/benchd-worker
  if [ ! -x "$benchd" ] || [ ! -x "$worker" ]; then
    bench_die "no $benchd or no $worker: build $build first (benchd_runtime)"
  fi
}

# ---- Files, ports, CPU time --------------------------------------------------------------------

# bench_workdir: a new folder /tmp/benchd-NAME.XXXXXX for the script's files, in work; removed
# at exit, after the processes that may still write there are stopped.
bench_workdir() {
  work=$(mktemp -d "/tmp/benchd-$bench_name.XXXXXX")
  bench_at_exit rm -rf "$work"
}

# bench_free_port: prints a TCP port on 127.0.0.1 that nothing listens on right now.
bench_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# bench_cpu_ticks PID: prints the CPU ticks (utime + stime) of process PID and all its threads
# so far; divide by bench_ticks_per_second for seconds.
bench_cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# shellcheck disable=SC2034  # read by the scripts
bench_ticks_per_second=$(getconf CLK_TCK)

# bench_wait_until SECONDS CMD...: runs CMD every 0.1 s until it succeeds (returns 0) or about
# SECONDS have passed (returns 1).
bench_wait_until() {
  local tries=$(($1 * 10)) i
  shift
  for ((i = 0; i < tries; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# bench_port_open PORT: whether something accepts connections on 127.0.0.1:PORT.
bench_port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# bench_wait_for_port PORT: waits (up to 10 s) until something listens on 127.0.0.1:PORT; dies
# otherwise.
bench_wait_for_port() {
  bench_wait_until 10 bench_port_open "$1" || bench_die "nothing listens on port $1"
}

# ---- Processes ---------------------------------------------------------------------------------

declare -A bench_tracked=()  # registered pid -> "START_TIME STOP_SIGNAL"
bench_hooks=()               # bench_at_exit's commands, quoted
bench_signal=""              # the signal the script is exiting by, if any

# bench__scan: reads every live process (zombies left out) into bench__ppid, bench__start (its
# start time in ticks since boot, /proc/PID/stat field 22) and bench__comm, indexed by pid.
# Shell builtins only: it runs in traps, and often.
bench__scan() {
  bench__ppid=() bench__start=() bench__comm=()
  local stat line pid comm
  local -a field
  for stat in /proc/[0-9]*/stat; do
    { read -r line < "$stat"; } 2>/dev/null || continue
    pid=${line%% *}
    comm=${line#*(}
    comm=${comm%)*}
    # After "(comm) " the fields are numbers and one state letter: no glob, no quoting.
    # shellcheck disable=SC2206
    field=(${line##*) })
    [ "${field[0]}" != Z ] || continue
    bench__ppid[pid]=${field[1]}
    bench__start[pid]=${field[19]}
    bench__comm[pid]=$comm
  done
}

# bench__signal SIGNAL PID...: sends SIGNAL to each PID, never failing (a PID may be gone).
bench__signal() {
  local signal=$1 pid
  shift
  for pid in "$@"; do kill -s "$signal" "$pid" 2>/dev/null || true; done
}

# bench__names PID...: "comm (pid), ..." of the PIDs as the last bench__scan saw them.
bench__names() {
  local pid names=""
  for pid in "$@"; do names+="${names:+, }${bench__comm[$pid]:-?} ($pid)"; done
  echo "$names"
}

# bench_track [--signal SIGNAL] PID: registers PID, a process the script started, to be
# stopped by bench_stop and at exit, SIGNAL (default TERM) first: e.g. INT for a PostgreSQL
# postmaster (its fast shutdown). A PID that is no longer running is not registered.
bench_track() {
  local signal=TERM line
  if [ "$1" = --signal ]; then
    signal=$2
    shift 2
  fi
  { read -r line < "/proc/$1/stat"; } 2>/dev/null || return 0
  local -a field
  # shellcheck disable=SC2206  # numbers and a state letter, see bench__scan
  field=(${line##*) })
  bench_tracked[$1]="${field[19]} $signal"
}

# bench_ended PID: whether process PID has ended (it is gone, or a zombie not yet reaped).
bench_ended() {
  local line
  { read -r line < "/proc/$1/stat"; } 2>/dev/null || return 0
  line=${line##*) }
  [ "${line%% *}" = Z ]
}

# bench_wait PID: waits for PID (a child of this shell) to end, unregisters it and returns its
# exit status.
bench_wait() {
  local status=0
  wait "$1" || status=$?
  unset "bench_tracked[$1]"
  return "$status"
}

# bench_run CMD...: runs CMD (a program, not a shell function) as a foreground command would
# run, with the script's standard input, but registered while it runs, so that a signal to the
# script stops both at once; returns CMD's exit status.
bench_run() {
  "$@" <&0 &
  local pid=$!
  bench_track "$pid"
  bench_wait "$pid"
}

# bench_stop [PID...]: stops the registered PIDs (default: every registered process) and every
# process below them, as the head of this file describes (stop signal, orphans SIGTERM, SIGKILL
# after bench_stop_seconds), reaps them and unregisters them; PIDs not registered are skipped.
# Says on stderr what it had to SIGKILL. Returns 0.
# shellcheck disable=SC2120  # called without PIDs too: every registered process
bench_stop() {
  local line
  bench__report=()
  # Its stderr hidden: bash reports a background job that a signal ended ("Killed") on its own
  # whenever it notices, and these ends are expected. What it has to say comes after.
  bench__stop "$@" 2>/dev/null
  for line in "${bench__report[@]}"; do bench_log "$line"; done
  return 0
}

# bench__stop [PID...]: bench_stop's work; its messages go to bench__report.
bench__stop() {
  local -a roots
  if [ $# -gt 0 ]; then roots=("$@"); else roots=("${!bench_tracked[@]}"); fi
  [ ${#roots[@]} -gt 0 ] || return 0
  local -A start=() parent=() signalled=()
  local -a registered=() alive=()
  local pid child above entry begun stop_signal more now killed_at=0
  local deadline=$((${EPOCHREALTIME//[!0-9]/} + bench_stop_seconds * 1000000))
  bench__scan
  for pid in "${roots[@]}"; do
    entry=${bench_tracked[$pid]:-}
    [ -n "$entry" ] || continue
    unset "bench_tracked[$pid]"
    registered+=("$pid")
    read -r begun stop_signal <<<"$entry"
    if [ "${bench__start[$pid]:-}" = "$begun" ]; then
      start[$pid]=$begun
      parent[$pid]=registered
      signalled[$pid]=$stop_signal
    fi
  done
  while :; do
    # Everything below the members still running joins them (to a fixpoint: a grandchild may
    # come before its parent in pid order); before the first signal, so that no child is
    # orphaned to init unseen.
    more=1
    while [ "$more" = 1 ]; do
      more=0
      for child in "${!bench__ppid[@]}"; do
        [ -z "${start[$child]:-}" ] || continue
        above=${bench__ppid[$child]}
        if [ -n "${start[$above]:-}" ] && [ "${bench__start[$above]:-}" = "${start[$above]}" ]; then
          start[$child]=${bench__start[$child]}
          parent[$child]=$above
          more=1
        fi
      done
    done
    alive=()
    for pid in "${!start[@]}"; do
      if [ "${bench__start[$pid]:-}" = "${start[$pid]}" ]; then
        alive+=("$pid")
      else
        unset "start[$pid]"
      fi
    done
    [ ${#alive[@]} -gt 0 ] || break
    for pid in "${alive[@]}"; do
      if [ "${parent[$pid]}" = registered ] && [ "${signalled[$pid]}" != sent ]; then
        bench__signal "${signalled[$pid]}" "$pid"
        bench__signal CONT "$pid"
        signalled[$pid]=sent
      elif [ -z "${signalled[$pid]:-}" ] && [ "${bench__ppid[$pid]}" != "${parent[$pid]}" ]; then
        # Its parent has gone without stopping it.
        bench__signal TERM "$pid"
        bench__signal CONT "$pid"
        signalled[$pid]=sent
      fi
    done
    now=${EPOCHREALTIME//[!0-9]/}
    if [ "$killed_at" -gt 0 ]; then
      if [ "$now" -ge $((killed_at + 5000000)) ]; then
        bench__report+=("still running 5 s after SIGKILL, left: $(bench__names "${alive[@]}")")
        break
      fi
    elif [ "$now" -ge "$deadline" ]; then
      bench__report+=("still running $bench_stop_seconds s after SIGTERM, sent SIGKILL:\
 $(bench__names "${alive[@]}")")
      bench__signal KILL "${alive[@]}"
      killed_at=$now
    fi
    sleep 0.1
    bench__scan
  done
  # Reap the registered ones that are this shell's children (and hide bash's "Terminated").
  for pid in "${registered[@]}"; do
    if [ -z "${start[$pid]:-}" ]; then wait "$pid" 2>/dev/null || true; fi
  done
  return 0
}

# bench_at_exit CMD...: runs CMD at the script's exit, after its processes are stopped; the
# hooks run last registered first. CMD may be a shell function.
bench_at_exit() { bench_hooks+=("$(printf '%q ' "$@")"); }

bench__on_exit() {
  local status=$? pid i
  trap '' INT TERM HUP  # a second Ctrl-C must not cut the cleanup short: it is bounded
  set +e
  if [ -n "$bench_signal" ]; then bench_log "got SIG$bench_signal: stopping what it started"; fi
  bench__scan
  for pid in "${!bench__ppid[@]}"; do
    if [ "${bench__ppid[$pid]}" = "$$" ] && [ -z "${bench_tracked[$pid]:-}" ]; then
      bench_track "$pid"
    fi
  done
  bench_stop
  for ((i = ${#bench_hooks[@]} - 1; i >= 0; i--)); do eval "${bench_hooks[i]}"; done
  trap - EXIT INT TERM HUP
  # Die by the signal itself, so that a calling shell sees it (and a loop of them stops).
  if [ -n "$bench_signal" ]; then kill -s "$bench_signal" "$$"; fi
  exit "$status"
}
trap bench__on_exit EXIT
trap 'bench_signal=INT; exit 130' INT
trap 'bench_signal=TERM; exit 143' TERM
trap 'bench_signal=HUP; exit 129' HUP

# ---- The worker --------------------------------------------------------------------------------

# bench_start_worker CPU FILE PLUGIN_PATH PORT [WORKER_ARG...]: starts $worker (benchd-worker)
# pinned to CPU, serving the plugin at PLUGIN_PATH on 127.0.0.1:PORT with the WORKER_ARGs
# (e.g. --threads 1 --stats-interval-ms 60000), its stdout in FILE.out and stderr in FILE.err;
# registers it, sets worker_pid and waits (up to 10 s) for its "ready" line. Returns 1, having
# printed its stderr, when it exits or is not ready in time. Stop it with bench_stop.
bench_start_worker() {
  local cpu=$1 file=$2 plugin=$3 port=$4 i
  shift 4
  taskset -c "$cpu" "$worker" --plugin "$plugin" --port "$port" "$@" \
    >"$file.out" 2>"$file.err" &
  worker_pid=$!
  bench_track "$worker_pid"
  for ((i = 0; i < 100; i++)); do
    grep -q '"ready"' "$file.out" && return 0
    ! bench_ended "$worker_pid" || break
    sleep 0.1
  done
  bench_log "$plugin did not become ready (port $port):"
  cat "$file.err" >&2
  return 1
}

# ---- The winners grid (bench/results) ----------------------------------------------------------

# bench_results_option ARG...: takes an option the bench/results scripts share at the head of
# ARGs, into a global the script gives its default first: --repeat N (repeat), --approach A
# (approach), --file F (file), --out DIR (out), -w S and -t S (appended to the overrides array,
# passed on to benchd run); else bench_common_option. Sets bench_shift.
# shellcheck disable=SC2034  # the globals are the script's
bench_results_option() {
  case "$1" in
    --repeat | --approach | --file | --out | -w | -t)
      [ $# -ge 2 ] || bench_usage_error "$1 needs a value"
      bench_shift=2 ;;
  esac
  case "$1" in
    --repeat) repeat=$2 ;;
    --approach) approach=$2 ;;
    --file) file=$2 ;;
    --out) out=$2 ;;
    -w | -t) overrides+=("$1" "$2") ;;
    *) bench_common_option "$@" ;;
  esac
}

# bench_results_out: out, unless --out named it, becomes a new /tmp/benchd-NAME.XXXXXX (kept: it
# holds the results); stem is the scenario file's name without .csv (its results folder's).
# shellcheck disable=SC2034  # stem is the script's
bench_results_out() {
  [ -n "$out" ] || out=$(mktemp -d "/tmp/benchd-$bench_name.XXXXXX")
  stem=$(basename "$file" .csv)
}

# bench_wins FOLDER [WINNERS_ARG...]: the standings of `$benchd winners FOLDER WINNERS_ARGs`,
# printed as "WINS CONTESTS": the wins of every approach summed, and the grid's contests.
bench_wins() {
  local folder=$1
  shift
  "$benchd" winners "$folder" "$@" |
    awk '/ contests/ { for (i = 1; i <= NF; ++i) if ($i == "contests") contests = $(i - 1) }
         /^  \([0-9]+\) / { wins += $(NF - 3) }
         END { print wins + 0, contests + 0 }'
}

# bench_cells COUNT OF [DECIMALS]: prints "COUNT of OF cells (P %)", P the share in percent with
# DECIMALS decimals (default 0).
bench_cells() {
  awk -v c="$1" -v o="$2" -v d="${3:-0}" \
    'BEGIN { printf "%d of %d cells (%." d "f %%)", c, o, o ? 100 * c / o : 0 }'
}
