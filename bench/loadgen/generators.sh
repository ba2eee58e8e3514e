# The generators the loadgen benches compare, as shell functions: sourced by
# loadgen-vs-wrk.sh, loadgen-vs-wrk-tls.sh and loadgen-vs-h2load-h2.sh once they set their
# settings (and, optionally, target_width: the width of the target column, 22). The functions
# read BUILD_DIR, PLUGIN, work, benchd, CONNECTIONS, DURATION and GEN_CPU when called.
# shellcheck shell=bash
# shellcheck disable=SC2154  # the variables above are the sourcing script's

target_width="${target_width:-22}"

# Builds benchd, benchd-worker and PLUGIN in BUILD_DIR (Release) when one of them is missing,
# then runs from that tree; sets plugin_so.
loadgen_use_tree() {
  plugin_so="${BUILD_DIR}/plugins/${PLUGIN}.so"
  if [[ ! -x "${BUILD_DIR}/bin/benchd" || ! -x "${BUILD_DIR}/bin/benchd-worker" ||
    ! -f "${plugin_so}" ]]; then
    bench_log "building benchd, benchd-worker and ${PLUGIN} in ${BUILD_DIR}"
    scripts/install-deps.sh >&2
    bench_cmake -S . -B "${BUILD_DIR}" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBENCHD_BUILD_TESTS=OFF -DBENCHD_BUILD_BENCHMARKS=OFF
    bench_cmake --build "${BUILD_DIR}" --target benchd benchd-worker "${PLUGIN//-/_}"
  fi
  bench_use_tree "${BUILD_DIR}"  # benchd, worker
}

# Makes this run's certificate for 127.0.0.1 (EC P-256, a day) in ${work}: cert.pem, key.pem.
loadgen_certificate() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj "/CN=bench" \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "${work}/key.pem" -out "${work}/cert.pem" \
    2>"${work}/openssl.err" ||
    bench_die "openssl could not make a certificate: $(cat "${work}/openssl.err")"
}

# Each run_* prints "<requests> <seconds> <cpu seconds>" for one run of its tool.
timed() {
  bench_run /usr/bin/time -f '%U %S' -o "${work}/time" taskset -c "${GEN_CPU}" "$@"
}

cpu_seconds() {
  awk '{ print $1 + $2 }' "${work}/time"
}

# run_benchd BASE APPROACH [benchd load options, e.g. --http2 --streams 20 or --requests N]
run_benchd() {
  local base="$1" approach="$2"
  shift 2
  timed "${benchd}" load --url "${base}" --approach "${approach}" --connections "${CONNECTIONS}" \
    --duration "${DURATION}" --threads 1 --quiet --json "$@" >"${work}/benchd.json"
  python3 - "${work}/benchd.json" "$(cpu_seconds)" <<'EOF'
import json, sys
result = json.load(open(sys.argv[1]))
errors = result["requests"]["errors"]
if errors:
    print(f"benchd load reported {errors} errors", file=sys.stderr)
print(result["requests"]["completed"], result["elapsedSeconds"], sys.argv[2])
EOF
}

run_wrk() {
  local url="$1"
  timed wrk -t1 -c"${CONNECTIONS}" -d"${DURATION}s" "${url}" >"${work}/wrk.txt"
  awk -v cpu="$(cpu_seconds)" '
    / requests in / { requests = $1; seconds = $4; sub(/s,?$/, "", seconds) }
    /Non-2xx|Socket errors/ { print "wrk: " $0 > "/dev/stderr" }
    END { print requests, seconds, cpu }' "${work}/wrk.txt"
}

run_h2load() {
  local url="$1"
  timed h2load --h1 -t1 -c"${CONNECTIONS}" -D "${DURATION}" "${url}" >"${work}/h2load.txt"
  awk -v cpu="$(cpu_seconds)" '
    /^finished in/ { seconds = $3; sub(/s,$/, "", seconds) }
    /^requests:/ { succeeded = $8 }
    END { print succeeded, seconds, cpu }' "${work}/h2load.txt"
}

declare -gA rates cpus

# Runs one tool once on one target and records its req/s and CPU us/request.
measure_once() {
  local target="$1" tool="$2" run="$3"
  shift 3
  local requests seconds cpu rate micros
  # Not in $(...): the run must be this shell's, so that a signal stops it (bench_run).
  "$@" >"${work}/run"
  read -r requests seconds cpu <"${work}/run"
  rate="$(awk -v r="${requests}" -v s="${seconds}" 'BEGIN { printf "%.0f", r / s }')"
  micros="$(awk -v c="${cpu}" -v r="${requests}" 'BEGIN { printf "%.2f", (r > 0 ? c * 1e6 / r : 0) }')"
  printf "  %-${target_width}s %-8s run %d: %9s req/s  %7s us CPU/request  (%s requests, %.1f s CPU)\n" \
    "${target}" "${tool}" "${run}" "${rate}" "${micros}" "${requests}" "${cpu}"
  rates["${target},${tool}"]+="${rate} "
  cpus["${target},${tool}"]+="${micros} "
  sleep 1
}

median() {
  tr ' ' '\n' <<<"$1" | grep -v '^$' | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

