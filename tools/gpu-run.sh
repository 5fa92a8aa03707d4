#!/usr/bin/env bash
# tools/gpu-run.sh: everything ncore checks on a GPU machine, in one go, from
# binaries built elsewhere (make test-programs; carry build/): the C tests on the NCCL
# backend, the NCCL smoke test, the demo and the conformance suite (C runner;
# other runners when built), the bindings' GPU tests. Each part runs under
# its own time limit; its output streams to stdout and to $OUT/<part>.log
# (OUT defaults to /tmp/ncore-gpu), so a part killed at its limit still
# leaves what it printed; the last lines summarise the parts.
# Usage: tools/gpu-run.sh [RANKS] (RANKS defaults to the number of GPUs).
#        tools/gpu-run.sh oversubscribed 1|2   (several NCCL ranks
#        on one GPU, NCORE_OVERSUBSCRIBE=1; call 1: the C tests with 2, 3 and 4
#        ranks and compute-sanitizer memcheck over them with 2 ranks; call 2:
#        the conformance matrix up to 4 ranks in the four languages, the
#        bindings' 2-rank tests, the demo and the examples. Each fits one
#        device call of 10 minutes.)
#        tools/gpu-run.sh bench   (the GPU benchmarks, one device
#        call: bench/gpu/run-all.sh with OUT as given, needing what
#        bench/gpu/build.sh and bindings/python/test.sh built here, carried;
#        render the plots here with python3 bench/gpu/plot.py OUT.)
# PARTS picks the parts (default: "c-tests demo smoke conformance python
# nccl4py rust rust-example go go-tests"; nccl4py: the nccl.core examples
# with torch and CuPy, 1 and 2 ranks; graphs: tests/gpu/graphs.sh, only
# when named); C_TESTS_LIMIT bounds the C tests (s).
# The binding tests (python, rust, go-tests) run 2 ranks; with fewer than 2
# GPUs they share one (NCORE_OVERSUBSCRIBE=1, unless set: each rank its own
# NCCL host). They need what the bindings' test.sh built here, carried:
# bindings/python/build (SWIG output, compiled there by build-ext.sh),
# build/bin/rust-nccl-tests (the ncore crate's tests/nccl.rs binary),
# build/bin/rust-service (its service example), build/bin/ncore-go-tests
# (the Go package's tests) and build/bin/ncore-go-orchestrator. The ranks'
# output of the Python tests is kept in $OUT/framework-ranks-*.log.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ncore-gpu}
mkdir -p "$out"
export OUT_DIR=$out
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${1:-}" = oversubscribed ]; then
  # Several NCCL ranks per GPU (core_launch_isolate_host): every
  # launcher and the test harness give each rank its own NCCL host.
  export NCORE_OVERSUBSCRIBE=1
  case "${2:-}" in
    1) PARTS=${PARTS:-"c-tests memcheck"}
       BACKGROUND=${BACKGROUND:-memcheck} ;;
    2) PARTS=${PARTS:-"conformance python rust go-tests go rust-example demo"}
       BACKGROUND=${BACKGROUND:-conformance} ;;
    *) echo "usage: tools/gpu-run.sh oversubscribed 1|2" >&2; exit 2 ;;
  esac
  RANK_COUNTS=${RANK_COUNTS:-"2 3 4"}
  ranks=4
  C_TESTS_LIMIT=${C_TESTS_LIMIT:-330}
  TEST_JOBS=${TEST_JOBS:-5}
elif [ "${1:-}" = multi ]; then
  # One rank per GPU, everything in one device call: the
  # correctness suites in the background from the start, the put_signal
  # tests and a quick latency look in the foreground.
  ranks=$gpus
  RANK_COUNTS=${RANK_COUNTS:-$(seq -s ' ' 2 "$gpus")}
  TEST_JOBS=${TEST_JOBS:-6}
  PARTS=${PARTS:-"conformance c-tests python nccl4py sanitize putsignal onesided smoke demo rust rust-example go go-tests"}
  BACKGROUND=${BACKGROUND:-"conformance c-tests python nccl4py sanitize"}
  NCCL4PY_RANKS=${NCCL4PY_RANKS:-"1 2 $gpus"}
elif [ "${1:-}" = bench ]; then
  ranks=$gpus
else
  ranks=${1:-$gpus}
  RANK_COUNTS=${RANK_COUNTS:-$ranks}
  TEST_JOBS=${TEST_JOBS:-1}
fi
export NCCL_NVLS_ENABLE=0 NCORE_BACKEND=nccl
# The library of this build/, wherever it was carried (the Rust binaries
# load libncore at run time).
export NCORE_LIBRARY=${NCORE_LIBRARY:-$PWD/build/lib/libncore.so.1}
if [ -z "${NCORE_NCCL_LIBRARY:-}" ]; then
  for candidate in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/cuda/lib64/libnccl.so.2; do
    if [ -f "$candidate" ]; then export NCORE_NCCL_LIBRARY=$candidate; break; fi
  done
fi
if [ "${1:-}" = bench ]; then
  OUT=$out exec bench/gpu/run-all.sh
fi
{
  date -u +"%Y-%m-%d %H:%M UTC"
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
  echo "NCORE_NCCL_LIBRARY=${NCORE_NCCL_LIBRARY:-(search)} ranks=$ranks"
} | tee "$out/machine.txt"

# The binding tests' 2 ranks share a GPU where there are fewer than 2.
oversubscribe=${NCORE_OVERSUBSCRIBE:-$([ "$gpus" -lt 2 ] && echo 1 || echo 0)}
root=$PWD

summary=()
parts=" ${PARTS:-c-tests demo smoke conformance python nccl4py rust rust-example go go-tests} "
# Parts named in BACKGROUND run alongside the others (their output only in
# their log until the summary), so one device call can hold more.
background=" ${BACKGROUND:-} "
background_names=()
part() { # name timeout command...
  local name=$1 limit=$2; shift 2
  [[ "$parts" == *" $name "* ]] || return 0
  if [[ "$background" == *" $name "* ]]; then
    echo "######## $name (limit ${limit} s, in the background): $*"
    ( timeout -k 10 "$limit" "$@" > "$out/$name.log" 2>&1; echo $? > "$out/$name.rc" ) &
    background_names+=("$name")
    return 0
  fi
  echo "######## $name (limit ${limit} s): $*"
  # timeout signals the command's whole process group (ranks included),
  # then KILLs what is left 10 s later, so tee sees the end of its input.
  timeout -k 10 "$limit" "$@" 2>&1 | tee "$out/$name.log"
  summarise "$name" "${PIPESTATUS[0]}" "$limit"
}
summarise() { # name exit-status limit
  local result
  result=$(grep -E '[0-9]+ passed' "$out/$1.log" | tail -1)
  if [ "$2" = 124 ] || [ "$2" = 137 ]; then result="timed out after $3 s; $result"; fi
  summary+=("$(printf '%-14s exit %3d  %s' "$1" "$2" "$result")")
}
# The Python extension is compiled here (no swig on GPU machines) once,
# before any part starts: the conformance runner (in the background) and
# pytest both import it, and a rebuild under a running import breaks it.
if [[ "$parts" == *" python "* || "$parts" == *" conformance "* ||
      "$parts" == *" nccl4py "* ]] &&
   [ -f bindings/python/build/ncore_wrap.c ]; then
  bash bindings/python/build-ext.sh python3 > "$out/build-ext.log" 2>&1 ||
    echo "build-ext.sh failed: see $out/build-ext.log"
fi
# Background-capable parts first, so they overlap the ones after them.
part conformance "${CONFORMANCE_LIMIT:-420}" python3 conformance/run.py --max-ranks "$ranks" \
  --languages "${LANGUAGES:-c,python,rust,go}" --jobs "${CONFORMANCE_JOBS:-4}" \
  --keep "$out/conformance-launches"
# Every C test program with 2 ranks under compute-sanitizer memcheck (it
# follows the test's rank processes). NCCL's own probing at init hits CUDA
# API errors on purpose (no kernel image for other GPUs, cuMem features):
# only memory errors are reported. Some programs never touch CUDA
# (test_errors), which memcheck would otherwise call a failure.
part memcheck "${MEMCHECK_LIMIT:-250}" env SKIP_HOST=1 RANKS=2 JOBS="${MEMCHECK_JOBS:-2}" PROGRAM_TIMEOUT=240 \
  TEST_WRAPPER="compute-sanitizer --tool memcheck --require-cuda-init no --report-api-errors no --error-exitcode 99 --print-limit 20" \
  tests/run.sh build
# The one-sided and symmetric tests with 2 ranks under compute-sanitizer's
# memcheck and racecheck. racecheck looks at ncore's kernels
# only: it reports shared-memory hazards inside NCCL's own kernels
# (ncclDevKernel_SendRecv, 2.28.9), which are NCCL's to answer for. NCCL's
# init takes over 30 s per test under a sanitizer, so a program's tests run
# in groups of SANITIZE_GROUP (default 3; NCORE_TEST_ONLY), every group of
# one tool at once; wait_times_out_without_signal waits out the test
# timeout by design, so it has a group of its own.
part sanitize "${SANITIZE_LIMIT:-480}" bash -c '
  p=0; f=0
  for tool in memcheck racecheck; do
    filter=; [ $tool = racecheck ] && filter="--kernel-name-exclude kns=ncclDevKernel"
    runs=()
    for prog in test_onesided test_symmetric; do
      names=$(sed -nE "s/^MR_TEST(_EX)?\(([a-z0-9_]+).*/\2/p" tests/multirank/$prog.c)
      groups=$(echo "$names" | grep -v "^wait_times_out_without_signal$" |
               xargs -n "${SANITIZE_GROUP:-3}" echo)
      echo "$names" | grep -qx wait_times_out_without_signal &&
        groups=$(printf "%s\nwait_times_out_without_signal" "$groups")
      i=0
      while read -r group; do
        i=$((i + 1)); run=$tool-$prog-$i; runs+=("$run")
        ( env NCORE_TEST_ONLY="$group" SKIP_HOST=1 RANKS=2 ONLY=$prog JOBS=1 PROGRAM_TIMEOUT=580 \
            NCORE_TEST_TIMEOUT_MS=${SANITIZE_TEST_TIMEOUT_MS:-90000} \
            TEST_WRAPPER="compute-sanitizer --tool $tool $filter --report-api-errors no --error-exitcode 99 --print-limit 20" \
            tests/run.sh build > "$OUT_DIR/sanitize-$run.log" 2>&1
          echo $? > "$OUT_DIR/sanitize-$run.rc" ) &
      done <<< "$groups"
    done
    wait
    for run in "${runs[@]}"; do
      echo "=== $run: exit $(cat "$OUT_DIR/sanitize-$run.rc")"
      grep -E "^(ok|FAIL|skip) |ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$OUT_DIR/sanitize-$run.log" | tail -12
      if [ "$(cat "$OUT_DIR/sanitize-$run.rc")" = 0 ]; then p=$((p + 1)); else f=$((f + 1)); fi
    done
  done
  echo "$p passed, $f failed (groups of tests)"; [ $f = 0 ]'
part python 420 env -u NCORE_BACKEND NCORE_OVERSUBSCRIBE="$oversubscribe" \
  NCORE_TEST_LOG_DIR="$out" PYTHONPATH=bindings/python \
  python3 -m pytest -v -rs -p no:cacheprovider bindings/python/tests
# The nccl.core examples with torch, then CuPy, on NCCL: 1 rank and 2 (two
# ranks share a GPU where there are fewer than 2).
part nccl4py 300 env -u NCORE_BACKEND NCORE_OVERSUBSCRIBE="$oversubscribe" PYTHON=python3 \
  BACKEND=nccl ARRAYS="torch cupy" RANKS="${NCCL4PY_RANKS:-1 2}" examples/nccl4py/run.sh
part c-tests "${C_TESTS_LIMIT:-300}" env SKIP_HOST=1 RANKS="$RANK_COUNTS" JOBS="$TEST_JOBS" \
  PROGRAM_TIMEOUT=300 NCORE_TEST_HANG_COMMAND="timeout 30 cuda-gdb -batch -ex 'thread apply all bt 12' -p %d" \
  tests/run.sh build
# put_signal -> wait_signal on real GPUs (tests/gpu/run.sh).
part putsignal "${PUTSIGNAL_LIMIT:-300}" tests/gpu/run.sh
# ncore's calls captured into CUDA graphs and replayed, in C (every mode),
# Python (torch, CuPy), Rust, Go and the conformance cases
# (tests/gpu/graphs.sh): in no default list, since it needs most
# of a device call of its own (PARTS=graphs tools/gpu-run.sh).
part graphs "${GRAPHS_LIMIT:-570}" tests/gpu/graphs.sh
# A first look at put_signal latency per wait mode (figures only from the
# bench call, on an otherwise idle machine).
part onesided "${ONESIDED_LIMIT:-120}" bash -c '
  n=0
  for wait in stream spin hybrid; do
    echo "=== NCORE_NCCL_WAIT=$wait"
    NCORE_NCCL_WAIT=$wait timeout 35 build/bin/ncore-run -n 2 --timeout 35 -- \
      build/bin/onesided_bench --max "${ONESIDED_MAX:-16}" --json "$OUT_DIR/onesided-$wait.json" && n=$((n + 1))
  done
  echo "$n passed, $((3 - n)) failed"'
part demo 45 build/bin/ncore-run -n "$ranks" --timeout 45 build/bin/ncore-demo
part smoke 90 tests/gpu-smoke/run.sh
part rust 240 env NCORE_OVERSUBSCRIBE="$oversubscribe" NCORE_RUN="$root/build/bin/ncore-run" \
  LD_LIBRARY_PATH="$root/build/lib" build/bin/rust-nccl-tests --test-threads=1
part rust-example 30 env LD_LIBRARY_PATH=build/lib build/bin/ncore-run -n "$ranks" -- build/bin/rust-service
part go 60 build/bin/ncore-go-orchestrator -n "$ranks"
# go test -v prints no total: count the top-level results.
part go-tests 300 env NCORE_OVERSUBSCRIBE="$oversubscribe" bash -c \
  'log=$(mktemp); trap "rm -f \"\$log\"" EXIT
   build/bin/ncore-go-tests -test.run "NCCL|DeviceMemoryRanks" -test.v -test.timeout 280s 2>&1 |
     tee "$log"
   rc=${PIPESTATUS[0]}
   echo "$(grep -c "^--- PASS" "$log") passed, $(grep -c "^--- FAIL" "$log") failed," \
     "$(grep -c "^--- SKIP" "$log") skipped"
   exit $rc'
wait
for name in "${background_names[@]}"; do
  echo "######## $name (ran in the background)"
  tail -n 60 "$out/$name.log"
  summarise "$name" "$(cat "$out/$name.rc" 2>/dev/null || echo 1)" "?"
done
echo "######## summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
