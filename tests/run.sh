#!/usr/bin/env bash
# Runs ncore's C tests: every unit program once, every multi-rank program
# with 2, 3 and 4 ranks, one multi-rank program under tools/ncore-run, then
# the same again on the NCCL backend (NCORE_BACKEND=nccl) or a line saying
# why that pass is skipped. Prints each program's output and a final total
# "N passed, N failed[, N skipped]"; exits 1 if anything failed.
#
# Usage: tests/run.sh [BUILD_DIR]
#   BUILD_DIR (default: build) holds lib/libncore.so and tests/<program>
#   (the Makefile's layout: `make test-programs`, tools/build-variant.sh). The tests
#   always run against that library, the one Bazel builds with its version
#   script, soname and kernels; it is never rebuilt here. A test program
#   missing from BUILD_DIR/tests is compiled with gcc into /tmp/ncore-tests/
#   against it.
# Environment: RANKS="2 3 4" to choose rank counts; PROGRAM_TIMEOUT (seconds
#   per program run, default 600); SKIP_HOST=1 to leave out the host pass (on
#   a GPU machine, where CI already covers it); SKIP_NCCL=1 to leave out
#   the NCCL pass (it is then reported as skipped); NCORE_OVERSUBSCRIBE=1
#   to run several NCCL ranks on one GPU (each rank its own NCCL host
#   identity, core/launch_vars.h); ONLY="prog ..." to run some
#   programs only; JOBS=N to run N program invocations at once (output is
#   still printed in order); TEST_WRAPPER="cmd args" to run every program
#   under a tool (e.g. compute-sanitizer, which follows the test's child
#   processes).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build}
RANKS=${RANKS:-"2 3 4"}
PROGRAM_TIMEOUT=${PROGRAM_TIMEOUT:-600}
WORK=/tmp/ncore-tests
mkdir -p "$WORK/bin"

UNIT_PROGRAMS="test_errors test_versioned test_guard_bytes test_handles test_handle_table test_peer_offers test_dtypes test_buffer test_memory test_info test_params test_launcher test_log test_job_identity test_store test_small_coll_layout"
MULTIRANK_PROGRAMS="test_comm test_comm_control test_p2p test_collectives test_coll_config test_redop test_resources test_onesided test_devcomm test_symmetric test_groups test_isolation test_failure test_one_copy test_rendezvous test_long_waits"
LAUNCHER_PROGRAM=test_p2p
# With several jobs at once, the slowest program (its tests wait for dead
# and aborted peers) starts first, so it does not end the run alone.
if [ "${JOBS:-1}" -gt 1 ]; then
  MULTIRANK_PROGRAMS="test_failure ${MULTIRANK_PROGRAMS/test_failure /}"
fi
# Run once more with non-blocking communicators (NCORE_TEST_NONBLOCKING=1,
# config.blocking = 0): the same collective, p2p and window tests must pass.
NONBLOCKING_PROGRAMS="test_collectives test_p2p test_resources"

# ---- the library: the one `make lib` built ----
if [ ! -f "$BUILD/lib/libncore.so" ]; then
  echo "run.sh: $BUILD/lib/libncore.so not found: build it with 'make lib' (or"
  echo "run.sh: tools/build-variant.sh VARIANT $BUILD); the tests only run against it"
  echo "0 passed, 1 failed"
  exit 1
fi
LIBDIR=$(cd "$BUILD/lib" && pwd)

# ---- locate or build the test programs ----
HARNESS="tests/harness/harness.c tests/harness/multirank.c tests/harness/spawn.c tests/harness/testbuf.c"
program_path() { # name -> path of an executable, building it if needed
  local name=$1 src
  if [ -x "$BUILD/tests/$name" ]; then echo "$BUILD/tests/$name"; return; fi
  for src in tests/unit/$name.c tests/multirank/$name.c tests/tools/$name.c; do
    [ -f "$src" ] || continue
    if [ ! -x "$WORK/bin/$name" ] || [ "$src" -nt "$WORK/bin/$name" ] || \
       [ -n "$(find tests/harness -newer "$WORK/bin/$name" 2>/dev/null)" ]; then
      gcc -std=c11 -O1 -g -D_GNU_SOURCE -Wall -Iabi/include -Itests/harness -I. \
          "$src" $HARNESS -o "$WORK/bin/$name" -L"$LIBDIR" -lncore \
          -Wl,-rpath,"$LIBDIR" -lpthread -lm >&2 || return 1
    fi
    echo "$WORK/bin/$name"
    return
  done
  return 1
}

# The launcher (make lib builds it into BUILD/bin, or build/bin).
launcher_path() {
  local candidate
  for candidate in "$BUILD/bin/ncore-run" build/bin/ncore-run; do
    if [ -x "$candidate" ]; then echo "$candidate"; return; fi
  done
  return 1
}

export LD_LIBRARY_PATH="$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
TOTAL_PASSED=0 TOTAL_FAILED=0 TOTAL_SKIPPED=0
JOBS=${JOBS:-1}
OUTDIR=$(mktemp -d /tmp/ncore-run-sh.XXXXXX)
# Killed or interrupted: still show what the unreported invocations printed.
report_unfinished() {
  local index
  for ((index = PRINTED; index < ${#QUEUED[@]}; index++)); do
    echo "=== ${QUEUED[$index]} (unfinished)"
    cat "$OUTDIR/$index.out" 2>/dev/null
  done
  rm -rf "$OUTDIR"
}
trap report_unfinished EXIT
trap 'exit 124' TERM INT
QUEUED=()   # labels, in order; output in $OUTDIR/<index>.out, exit code in .rc
PRINTED=0   # how many of QUEUED have been reported

# Starts one program invocation in the background (at most JOBS at once);
# finished ones are reported in queue order as soon as all before them are
# (report_done), so a run cut short still shows what completed.
queue_one() { # label command...
  local label=$1; shift
  local index=${#QUEUED[@]}
  QUEUED+=("$label")
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; report_done; done
  (
    # ncore-run prefixes each rank's lines with "[r] "; the summary is rank 0's.
    set -o pipefail
    timeout "$PROGRAM_TIMEOUT" ${TEST_WRAPPER:-} "$@" 2>&1 | sed -u -E 's/^\[0\] //' > "$OUTDIR/$index.out"
    echo $? > "$OUTDIR/$index.rc"
  ) &
}

# Reports, in queue order, every invocation that finished and whose
# predecessors were reported: prints its output and adds its summary line to
# the totals (one that ends without one counts as one failure).
report_done() {
  local index label out rc summary p f s
  while [ "$PRINTED" -lt "${#QUEUED[@]}" ] && [ -f "$OUTDIR/$PRINTED.rc" ]; do
    index=$PRINTED
    PRINTED=$((PRINTED + 1))
    label=${QUEUED[$index]}
    echo "=== $label"
    out=$(cat "$OUTDIR/$index.out" 2>/dev/null)
    rc=$(cat "$OUTDIR/$index.rc" 2>/dev/null || echo 1)
    echo "$out"
    summary=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -1)
    if [ -z "$summary" ]; then
      echo "FAIL $label: ended without a summary (exit status $rc)"
      TOTAL_FAILED=$((TOTAL_FAILED + 1))
      continue
    fi
    p=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')
    f=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
    s=$(echo "$summary" | sed -nE 's/.*, ([0-9]+) skipped$/\1/p')
    TOTAL_PASSED=$((TOTAL_PASSED + p))
    TOTAL_FAILED=$((TOTAL_FAILED + f))
    TOTAL_SKIPPED=$((TOTAL_SKIPPED + ${s:-0}))
    if [ "$f" = 0 ] && [ "$rc" != 0 ]; then
      echo "FAIL $label: exit status $rc with no failed test"
      TOTAL_FAILED=$((TOTAL_FAILED + 1))
    fi
  done
}

# Waits for the whole queue and reports it.
run_queued() {
  while [ "$PRINTED" -lt "${#QUEUED[@]}" ]; do
    wait -n 2>/dev/null || sleep 0.2
    report_done
  done
  QUEUED=()
  PRINTED=0
  rm -f "$OUTDIR"/*
}

# 1 when program name is selected by ONLY (everything when ONLY is unset).
selected() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }

# Counts the tests a program registers (for the skipped NCCL pass).
count_tests() { # path
  grep -cE '^(MR_TEST|MR_TEST_EX|TEST)\(' "$1"
}

# One full pass on the backend that NCORE_BACKEND (or AUTO) selects.
run_pass() { # label
  local pass=$1 name path n
  for name in $UNIT_PROGRAMS; do
    selected "$name" || continue
    path=$(program_path "$name") || { echo "FAIL $name: does not build"; TOTAL_FAILED=$((TOTAL_FAILED + 1)); continue; }
    queue_one "$pass $name" "$path"
  done
  for name in $MULTIRANK_PROGRAMS; do
    selected "$name" || continue
    path=$(program_path "$name") || { echo "FAIL $name: does not build"; TOTAL_FAILED=$((TOTAL_FAILED + 1)); continue; }
    for n in $RANKS; do queue_one "$pass $name $n" "$path" "$n"; done
  done
  # The non-blocking pass runs with the fewest ranks that still have peers
  # (with 1 rank the p2p tests have nobody to talk to and skip).
  local nonblocking_n
  nonblocking_n=$(echo $RANKS | tr ' ' '\n' | awk '$1 >= 2' | sort -n | head -1)
  [ -n "$nonblocking_n" ] || nonblocking_n=$(echo $RANKS | awk '{print $1}')
  for name in $NONBLOCKING_PROGRAMS; do
    selected "$name" || continue
    path=$(program_path "$name") || continue
    queue_one "$pass $name $nonblocking_n non-blocking" env NCORE_TEST_NONBLOCKING=1 "$path" "$nonblocking_n"
  done
  run_queued
  # One program under the launcher, so tools/ncore-run is exercised.
  path=$(program_path "$LAUNCHER_PROGRAM") || return
  local launcher
  if launcher=$(launcher_path); then
    # 3 ranks, or fewer when RANKS goes no higher (one GPU per NCCL rank).
    local n_launch=1 r
    for r in $RANKS; do [ "$r" -gt "$n_launch" ] && n_launch=$r; done
    [ "$n_launch" -gt 3 ] && n_launch=3
    queue_one "$pass $LAUNCHER_PROGRAM under ncore-run -n $n_launch" "$launcher" -n "$n_launch" -- "$path"
    run_queued
  else
    echo "=== $pass $LAUNCHER_PROGRAM under ncore-run"
    echo "FAIL ncore-run: not built (make lib)"
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
  fi
}

if [ "${SKIP_HOST:-0}" = 1 ]; then
  echo "=== host pass skipped: SKIP_HOST=1"
else
  NCORE_BACKEND=host run_pass host
fi

# ---- the NCCL pass ----
probe=$(program_path probe_backend) || probe=""
nccl_state="unavailable: the probe program does not build"
if [ -n "$probe" ]; then nccl_state=$(NCORE_BACKEND=nccl "$probe" 2>&1); fi
if [ "${SKIP_NCCL:-0}" = 1 ]; then nccl_state="unavailable: SKIP_NCCL=1"; fi
if [ "$nccl_state" = "available: nccl" ]; then
  NCORE_BACKEND=nccl run_pass nccl
else
  count=0
  for name in $UNIT_PROGRAMS; do count=$((count + $(count_tests tests/unit/$name.c))); done
  nr=$(echo $RANKS | wc -w)
  for name in $MULTIRANK_PROGRAMS; do count=$((count + nr * $(count_tests tests/multirank/$name.c))); done
  echo "=== nccl"
  echo "skipped: NCCL backend unavailable: ${nccl_state#unavailable: } ($count tests)"
  TOTAL_SKIPPED=$((TOTAL_SKIPPED + count))
fi

echo "=== total"
if [ "$TOTAL_SKIPPED" -gt 0 ]; then
  echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed, $TOTAL_SKIPPED skipped"
else
  echo "$TOTAL_PASSED passed, $TOTAL_FAILED failed"
fi
[ "$TOTAL_FAILED" = 0 ]
