#!/usr/bin/env bash
# The NCCL backend's tests on the test doubles: builds them (build.sh) and
# runs build/tests/test_nccl_versions (version dispatch) and
# build/tests/test_nccl_graphs (CUDA graph capture) against each pretended
# version (every set tests/nccl-layouts/header-sets.sh lists: 2.28.9, 2.29.7,
# 2.30.7 here, and NCORE_EXTRA_NCCL_HEADERS' sets) on the NCCL backend,
# without a GPU, the device-communicator handle writers of
# build/tests/test_guard_bytes, and
# `ncore-run --info` against each, then the one-rank CUDA graph cases of the
# conformance matrix there. Ends with "N passed, N failed" over all
# programs, cases and versions. The double runs no kernel, so signals and
# waits use stream memory operations and collectives NCCL's kernels
# (NCORE_ALGO=nccl); the test of the small-message path's choice sets
# NCORE_ALGO for its own communicators.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build/fake-nccl
programs="build/tests/test_nccl_versions build/tests/test_nccl_graphs"
for program in $programs build/tests/test_guard_bytes; do
  [ -x "$program" ] || { echo "run.sh: $program missing: make test-programs first"; echo "0 passed, 1 failed"; exit 1; }
done
versions=$(tests/fake_nccl/build.sh "$out") || { echo "0 passed, 1 failed"; exit 1; }
passed=0 failed=0
for v in $versions; do
  for program in $programs; do
    echo "=== $program, NCCL $v (test double)"
    log=$(mktemp)
    NCORE_BACKEND=nccl FAKE_NCCL_VERSION=$v \
      NCORE_NCCL_LIBRARY=$PWD/$out/$v/libnccl.so.2 \
      NCORE_CUDA_LIBRARY=$PWD/$out/libcuda.so.1 \
      NCORE_NCCL_SIGNAL_MODE=write NCORE_NCCL_WAIT=stream NCORE_ALGO=nccl \
      timeout 300 "$program" 2>&1 | tee "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
    p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
    if [ -z "$line" ]; then f=1; p=0; fi
    # A skip here means the double was not loaded: that is a failure.
    if grep -q "^skip" "$log"; then f=$((f + 1)); fi
    passed=$((passed + p)); failed=$((failed + f))
    rm -f "$log"
  done
  # The handle writers of test_guard_bytes, which need an NCCL backend.
  echo "=== build/tests/test_guard_bytes (device communicator handles), NCCL $v (test double)"
  log=$(mktemp)
  NCORE_BACKEND=nccl FAKE_NCCL_VERSION=$v \
    NCORE_NCCL_LIBRARY=$PWD/$out/$v/libnccl.so.2 \
    NCORE_CUDA_LIBRARY=$PWD/$out/libcuda.so.1 \
    NCORE_TEST_ONLY="dev_comm_resource_handle_writes_only_the_callers_size dev_comm_multimem_handle_writes_only_the_callers_size" \
    timeout 300 build/tests/test_guard_bytes 2>&1 | tee "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
  if [ -z "$line" ] || [ "$p" != 2 ]; then f=$((${f:-0} + 1)); p=${p:-0}; fi
  if grep -q "^skip" "$log"; then f=$((f + 1)); fi
  passed=$((passed + p)); failed=$((failed + f))
  rm -f "$log"
  # ncore-run --info names the libnccl loaded, its version and the devices.
  info=$(NCORE_BACKEND=nccl FAKE_NCCL_VERSION=$v NCORE_NCCL_LIBRARY=$PWD/$out/$v/libnccl.so.2 \
    NCORE_CUDA_LIBRARY=$PWD/$out/libcuda.so.1 build/bin/ncore-run --info 2>&1)
  if [[ "$info" == *"; nccl backend: NCORE_BACKEND=nccl; NCCL $v from $PWD/$out/$v/libnccl.so.2; CUDA devices: 1" ]]; then
    echo "ok ncore-run --info names NCCL $v"; passed=$((passed + 1))
  else
    echo "FAIL ncore-run --info with NCCL $v: $info"; failed=$((failed + 1))
  fi
done
# The one-rank CUDA graph cases of the conformance matrix on the stand-in
# driver, in every language whose runner is built (the others skip, saying
# why): the runners' capture_begin / capture_end find the stand-in
# libcuda.so.1 through the loader path.
for v in $versions; do
  echo "=== conformance/run.py --cases 'cuda_graph_*', NCCL $v (test double)"
  log=$(mktemp)
  NCORE_BACKEND=nccl FAKE_NCCL_VERSION=$v \
    NCORE_NCCL_LIBRARY=$PWD/$out/$v/libnccl.so.2 \
    NCORE_CUDA_LIBRARY=$PWD/$out/libcuda.so.1 LD_LIBRARY_PATH=$PWD/$out \
    timeout 300 /usr/bin/python3 conformance/run.py --cases 'cuda_graph_*' \
    --max-ranks 1 2>&1 | tee "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}' | tr -d ,)
  if [ -z "$line" ]; then f=1; p=0; fi
  passed=$((passed + p)); failed=$((failed + f))
  rm -f "$log"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
