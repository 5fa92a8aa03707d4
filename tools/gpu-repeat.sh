#!/usr/bin/env bash
# tools/gpu-repeat.sh: runs one C test again and again on the NCCL backend,
# so that a failure seen once on a GPU machine (a hang, a crash) shows again
# with what explains it: a hung rank's stacks (NCORE_TEST_HANG_COMMAND,
# tools/gpu-hang-stacks.sh) and a crashing rank's stack (the harness prints
# it); tools/nccl-symbolize.py names their frames in a stripped libnccl. From
# binaries built elsewhere (make test-programs; carry build/).
# Usage: tools/gpu-repeat.sh PROGRAM TEST RANKS TIMES [AT_ONCE]
#   PROGRAM: a test program of build/tests (test_failure); TEST: one test of
#   it (NCORE_TEST_ONLY); RANKS: its rank count; TIMES: how many runs;
#   AT_ONCE: runs at the same time (default 4), each its own ranks.
# Ranks share the GPUs as in tools/gpu-run.sh oversubscribed (each its own
# NCCL host) unless NCORE_OVERSUBSCRIBE=0. NCORE_NCCL_LIBRARY picks the
# NCCL (NCORE_BACKEND=host runs it on the host backend); other variables
# (NCORE_TEST_DIE_AFTER_MS, NCCL_DEBUG) pass through.
# Each run's output goes to $OUT/<TEST>-<RANKS>-<n>.log (OUT defaults to
# /tmp/ncore-repeat); the last line counts the runs that passed, failed and
# were skipped (a test that skips, e.g. for too few GPUs, is no failure).
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 4 ]; then
  echo "usage: tools/gpu-repeat.sh PROGRAM TEST RANKS TIMES [AT_ONCE]" >&2
  exit 2
fi
program=$1 test=$2 ranks=$3 times=$4 at_once=${5:-4}
out=${OUT:-/tmp/ncore-repeat}
mkdir -p "$out"
rm -f "$out/$test-$ranks-"*.log # an earlier batch's logs would be counted
export NCORE_BACKEND=${NCORE_BACKEND:-nccl} NCCL_NVLS_ENABLE=0 NCORE_TEST_ONLY=$test
export NCORE_OVERSUBSCRIBE=${NCORE_OVERSUBSCRIBE:-1}
export NCORE_TEST_HANG_COMMAND=${NCORE_TEST_HANG_COMMAND:-"$PWD/tools/gpu-hang-stacks.sh %d"}
for n in $(seq 1 "$times"); do
  # The harness's watchdog ends a hung run; the outer limit is a backstop.
  timeout -k 5 180 "build/tests/$program" "$ranks" > "$out/$test-$ranks-$n.log" 2>&1 &
  while [ "$(jobs -r | wc -l)" -ge "$at_once" ]; do sleep 0.2; done
done
wait
# A run passed or skipped by its summary line; anything else (a failure, a
# crash, no summary at all) failed.
passed=0 failed=0 skipped=0 why_skipped=""
for log in "$out/$test-$ranks-"*.log; do
  if grep -q "^1 passed, 0 failed$" "$log"; then
    passed=$((passed + 1))
  elif grep -q "^0 passed, 0 failed, 1 skipped$" "$log"; then
    skipped=$((skipped + 1)); why_skipped=$(grep -m1 "^skip" "$log")
  else
    failed=$((failed + 1))
    echo "FAIL $log:"; grep -E "FAIL|crashed|hangs" "$log" | head -5
  fi
done
[ "$skipped" = 0 ] || echo "skipped, for instance: $why_skipped"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
