#!/usr/bin/env bash
# tests/gpu/run.sh: the test programs of tests/gpu (tests/gpu/build.sh
# built them here; carried in build/bin) on a GPU machine, one rank per GPU:
# put_signal_test's case groups each under ncore-run with 2 ranks and with
# every GPU, on a created stream and on the legacy default stream, each
# group bounded in time (a hung group fails alone and shows what arrived);
# putsig_sequence on 2 GPUs; nccl_one_side_registered (raw NCCL); first,
# small_coll_ranks (the small-message kernels between 2..8 ranks, on one
# GPU: it needs no second one), also under compute-sanitizer's memcheck.
# Ends with "N passed, N failed" over all groups' cases.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
source tests/gpu/group.sh
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 1 ] || { echo "skip: tests/gpu needs a GPU (found none)"; echo "0 passed, 0 failed"; exit 0; }
echo "=== small_coll_ranks"
log=$(mktemp)
timeout -k 5 300 build/bin/small_coll_ranks 2>&1 | tee "$log"
tally small_coll_ranks "$log" "${PIPESTATUS[0]}"
rm -f "$log"
# The same kernels under compute-sanitizer's memcheck (one kernel at a
# time: --sanitize), every access inside its allocation.
if command -v compute-sanitizer > /dev/null; then
  echo "=== small_coll_ranks --sanitize under memcheck"
  if timeout -k 5 300 compute-sanitizer --tool memcheck --error-exitcode 9 \
       build/bin/small_coll_ranks --sanitize 2 3 4 8; then
    echo "ok small_coll_ranks memcheck"; passed=$((passed + 1))
  else
    echo "FAIL small_coll_ranks memcheck"; failed=$((failed + 1))
  fi
else
  echo "skip: small_coll_ranks memcheck: no compute-sanitizer on PATH"
fi
[ "$gpus" -ge 2 ] || { echo "skip: the rest of tests/gpu needs 2 GPUs or more (found $gpus)"; echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit; }
program=build/bin/put_signal_test
[ -x "$program" ] || { echo "FAIL: $program missing (tests/gpu/build.sh)"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
group "$program" 2 90 many_before_one_wait
group "$program" 2 90 sizes
group "$program" 2 60 waits_of_one late_waiter
group "$program" 2 60 both_directions
group "$program" 2 90 many_before_one_wait --legacy-stream
# The copy engine for everything above the fused kernel (the path of the
# hang seen before the fix), the other wait modes, and launches
# without programmatic dependent launch.
group "$program" 2 90 NCORE_NCCL_PUT_SM_MAX=0 many_before_one_wait waits_of_one
group "$program" 2 90 NCORE_NCCL_PUT_SM_MAX=0 many_before_one_wait --source-in-window
group "$program" 2 90 NCORE_NCCL_WAIT=stream many_before_one_wait late_waiter
group "$program" 2 90 NCORE_NCCL_PDL=0 many_before_one_wait both_directions
group "$program" 2 90 NCORE_NCCL_WAIT=hybrid many_before_one_wait late_waiter
group "$program" "$gpus" 90 all_peers both_directions

# putsig_sequence (the send/recv hang's reproducer): every phase to the end on 2
# GPUs, each rank saying "PUTSIG ok". Its send/recv phase into window
# memory hung before core/nccl/window_alias.c.
sequence() { # label limit [VAR=value ...] max-bytes
  local label=$1 limit=$2; shift 2
  local log
  log=$(mktemp)
  echo "=== putsig_sequence $label"
  timeout -k 5 "$limit" env "${@:1:$#-1}" build/bin/ncore-run -n 2 --timeout "$limit" -- \
    build/bin/putsig_sequence "${@: -1}" 2>&1 | tee "$log"
  if [ "$(grep -c 'PUTSIG ok rank' "$log")" = 2 ]; then
    echo "ok putsig_sequence $label"; passed=$((passed + 1))
  else
    echo "FAIL putsig_sequence $label"; failed=$((failed + 1))
  fi
  rm -f "$log"
}
sequence "up to 256 MiB" 150 268435456
sequence "1 MiB, copy-engine puts, stream waits" 90 NCORE_NCCL_PUT_KERNEL_MAX=0 NCORE_NCCL_PUT_SM_MAX=0 NCORE_NCCL_WAIT=stream 1048576

# NCCL's own behaviour that putsig_sequence met, without ncore: a receive
# into a registered buffer from an unregistered one hangs. If a new NCCL
# stops hanging, this fails: core/nccl/window_alias.h's reason is then
# stale (the alias stays correct either way).
echo "=== nccl_one_side_registered"
nccl_lib=$(dirname "${NCORE_NCCL_LIBRARY:-/usr/local/cuda/lib64/libnccl.so.2}")
if LD_LIBRARY_PATH="$nccl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout -k 5 200 \
     build/bin/nccl_one_side_registered 1048576 50; then
  echo "ok nccl_one_side_registered"; passed=$((passed + 1))
else
  echo "FAIL nccl_one_side_registered"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
