#!/usr/bin/env bash
# tests/gpu/run.sh: the CUDA test programs of tests/gpu (tests/gpu/build.sh
# built them here; carried in build/bin) on a GPU machine, one rank per GPU:
# put_signal_test's case groups each under ncore-run with 2 ranks and with
# every GPU, on a created stream and on the legacy default stream, each
# group bounded in time (a hung group fails alone and shows what arrived).
# Ends with "N passed, N failed" over all groups' cases.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 2 ] || { echo "skip: tests/gpu needs 2 GPUs or more (found $gpus)"; echo "0 passed, 0 failed"; exit 0; }
program=build/bin/put_signal_test
[ -x "$program" ] || { echo "FAIL: $program missing (tests/gpu/build.sh)"; echo "0 passed, 1 failed"; exit 1; }
source tests/gpu/group.sh
group "$program" 2 90 many_before_one_wait
group "$program" 2 90 sizes
group "$program" 2 60 waits_of_one late_waiter
group "$program" 2 60 both_directions
group "$program" 2 90 many_before_one_wait --legacy-stream
# The copy engine for everything above the fused kernel (the path of the
# hang seen before issue 26's fix), the other wait modes, and launches
# without programmatic dependent launch.
group "$program" 2 90 NCORE_NCCL_PUT_SM_MAX=0 many_before_one_wait waits_of_one
group "$program" 2 90 NCORE_NCCL_PUT_SM_MAX=0 many_before_one_wait --source-in-window
group "$program" 2 90 NCORE_NCCL_WAIT=stream many_before_one_wait late_waiter
group "$program" 2 90 NCORE_NCCL_PDL=0 many_before_one_wait both_directions
group "$program" 2 90 NCORE_NCCL_WAIT=hybrid many_before_one_wait late_waiter
group "$program" "$gpus" 90 all_peers both_directions
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
