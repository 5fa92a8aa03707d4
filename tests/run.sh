#!/usr/bin/env bash
# Runs ncore's C tests: every unit program once, every multi-rank program
# with 2, 3 and 4 ranks, one multi-rank program under tools/ncore-run, then
# the same again on the NCCL backend (NCORE_BACKEND=nccl) or a line saying
# why that pass is skipped. Prints each program's output and a final total
# "N passed, N failed[, N skipped]"; exits 1 if anything failed.
#
# Usage: tests/run.sh [BUILD_DIR]
#   BUILD_DIR (default: build) holds lib/libncore.so and tests/<program>
#   (the Makefile's layout). Whatever is missing is compiled here with gcc
#   into /tmp/ncore-tests/ (the library from core/ as in the brief).
# Environment: RANKS="2 3 4" to choose rank counts; PROGRAM_TIMEOUT (seconds
#   per program run, default 600); SKIP_HOST=1 to leave out the host pass (on
#   a GPU machine, where CI already covers it); SKIP_NCCL=1 to leave out
#   the NCCL pass (it is then reported as skipped).
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build}
RANKS=${RANKS:-"2 3 4"}
PROGRAM_TIMEOUT=${PROGRAM_TIMEOUT:-600}
WORK=/tmp/ncore-tests
mkdir -p "$WORK/bin" "$WORK/lib"

UNIT_PROGRAMS="test_errors test_versioned test_handles test_dtypes test_buffer test_memory"
MULTIRANK_PROGRAMS="test_comm test_p2p test_collectives test_redop test_resources test_onesided test_devcomm test_symmetric test_groups test_isolation test_failure"
LAUNCHER_PROGRAM=test_p2p

# ---- locate or build the library ----
if [ -f "$BUILD/lib/libncore.so" ]; then
  LIBDIR=$(cd "$BUILD/lib" && pwd)
else
  echo "run.sh: $BUILD/lib/libncore.so not found; compiling core into $WORK/lib"
  # Without Bazel's nvcc step the embedded kernels are an empty fatbin: fine
  # for the host backend, and the NCCL backend then reports its kernels missing.
  printf '#include <stddef.h>\nconst unsigned char core_kernels_fatbin[8] = {0};\nconst size_t core_kernels_fatbin_size = 0;\n' \
      > "$WORK/lib/empty_fatbin.c"
  gcc -std=c11 -O2 -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE -Iabi/include -Icore -I. \
      -I/usr/local/cuda/include core/*.c core/host/*.c $(ls core/nccl/*.c 2>/dev/null) \
      "$WORK/lib/empty_fatbin.c" -o "$WORK/lib/libncore.so" -ldl -lpthread -lrt -lm \
      || { echo "run.sh: the library does not build"; echo "0 passed, 1 failed"; exit 1; }
  LIBDIR=$WORK/lib
fi

# ---- locate or build the test programs ----
HARNESS="tests/harness/harness.c tests/harness/multirank.c tests/harness/testbuf.c"
program_path() { # name -> path of an executable, building it if needed
  local name=$1 src
  if [ -x "$BUILD/tests/$name" ]; then echo "$BUILD/tests/$name"; return; fi
  for src in tests/unit/$name.c tests/multirank/$name.c tests/tools/$name.c; do
    [ -f "$src" ] || continue
    if [ ! -x "$WORK/bin/$name" ] || [ "$src" -nt "$WORK/bin/$name" ] || \
       [ -n "$(find tests/harness -newer "$WORK/bin/$name" 2>/dev/null)" ]; then
      gcc -std=c11 -O1 -g -D_GNU_SOURCE -Wall -Iabi/include -Itests/harness -Itools \
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

# Runs one program invocation, prints its output, adds its summary line to
# the totals (a program that ends without one counts as one failure).
run_one() { # label command...
  local label=$1; shift
  echo "=== $label"
  local out rc
  # ncore-run prefixes each rank's lines with "[r] "; the summary is rank 0's.
  out=$(set -o pipefail; timeout "$PROGRAM_TIMEOUT" "$@" 2>&1 | sed -E 's/^\[0\] //'); rc=$?
  echo "$out"
  local summary
  summary=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' | tail -1)
  if [ -z "$summary" ]; then
    echo "FAIL $label: ended without a summary (exit status $rc)"
    TOTAL_FAILED=$((TOTAL_FAILED + 1))
    return
  fi
  local p f s
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
}

# Counts the tests a program registers (for the skipped NCCL pass).
count_tests() { # path
  grep -cE '^(MR_TEST|MR_TEST_EX|TEST)\(' "$1"
}

# One full pass on the backend that NCORE_BACKEND (or AUTO) selects.
run_pass() { # label
  local pass=$1 name path n
  for name in $UNIT_PROGRAMS; do
    path=$(program_path "$name") || { echo "FAIL $name: does not build"; TOTAL_FAILED=$((TOTAL_FAILED + 1)); continue; }
    run_one "$pass $name" "$path"
  done
  for name in $MULTIRANK_PROGRAMS; do
    path=$(program_path "$name") || { echo "FAIL $name: does not build"; TOTAL_FAILED=$((TOTAL_FAILED + 1)); continue; }
    for n in $RANKS; do run_one "$pass $name $n" "$path" "$n"; done
  done
  # One program under the launcher, so tools/ncore-run is exercised.
  path=$(program_path "$LAUNCHER_PROGRAM") || return
  local launcher
  if launcher=$(launcher_path); then
    # 3 ranks, or fewer when RANKS asks for fewer (one GPU per NCCL rank).
    local n_launch=3 r
    for r in $RANKS; do [ "$r" -lt "$n_launch" ] && n_launch=$r; done
    run_one "$pass $LAUNCHER_PROGRAM under ncore-run -n $n_launch" "$launcher" -n "$n_launch" -- "$path"
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
