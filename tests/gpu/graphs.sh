#!/usr/bin/env bash
# tests/gpu/graphs.sh: every CUDA graph test on a GPU
# machine, from what was built elsewhere and carried (build/ with
# build/bin/graph_test from tests/gpu/build.sh, the bindings' GPU test
# binaries from their test.sh, bindings/python/build):
#   graph_test     tests/gpu/graph_test.cu under ncore-run, 2 ranks and every
#                  GPU: default modes, NCORE_NCCL_PDL=0, puts by the copy
#                  engine, and its refused case under each mode that keeps
#                  counts on the host (NCORE_NCCL_WAIT=stream, hybrid,
#                  NCORE_NCCL_SIGNAL_MODE=write)
#   python         the cuda_graph case of test_framework_ranks.py (torch.cuda.graph,
#                  CuPy's capture), 2 ranks
#   rust           nccl_graph_capture_on_two_ranks (build/bin/rust-nccl-tests)
#   go             TestNCCLGraphCapture (build/bin/ncore-go-tests)
#   conformance    the cuda_graph_* cases in C, Python, Rust and Go
# Each part is bounded in time; with fewer than 2 GPUs the 2-rank parts
# share one (NCORE_OVERSUBSCRIBE=1: every rank its own LSA team, so the
# one-sided parts of the cases are refused as documented, not run).
# GRAPHS_PARTS picks parts (default: all; about 5 minutes on 2 to 4 GPUs,
# the Python part the longest: it runs every framework case with torch and
# CuPy). Not PARTS: tools/gpu-run.sh's PARTS, which names this script,
# reaches it through the environment.
# Ends with "N passed, N failed" over all.
set -uo pipefail
cd "$(dirname "$0")/../.."
export NCCL_NVLS_ENABLE=0 NCORE_BACKEND=nccl
export NCORE_LIBRARY=${NCORE_LIBRARY:-$PWD/build/lib/libncore.so.1}
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$gpus" -ge 1 ] || { echo "skip: tests/gpu/graphs.sh needs a GPU (found none)"; echo "0 passed, 0 failed"; exit 0; }
if [ "$gpus" -lt 2 ]; then export NCORE_OVERSUBSCRIBE=${NCORE_OVERSUBSCRIBE:-1}; fi
ranks=$([ "$gpus" -ge 2 ] && echo "$gpus" || echo 2)
parts=" ${GRAPHS_PARTS:-graph_test python rust go conformance} "
source tests/gpu/group.sh
# count NAME PASSED FAILED: adds a part's counts; none found is a failure.
count() {
  local p=${2:-} f=${3:-}
  if [ -z "$p$f" ]; then
    echo "FAIL $1: no result line (see above)"
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}

if [[ "$parts" == *" graph_test "* ]]; then
  program=build/bin/graph_test
  if [ -x "$program" ]; then
    group "$program" 2 120
    group "$program" "$ranks" 150
    group "$program" 2 100 NCORE_NCCL_PDL=0
    group "$program" 2 100 NCORE_NCCL_PUT_KERNEL_MAX=0 NCORE_NCCL_PUT_SM_MAX=0 \
      pingpong many_one_wait waits_of_one signal_wait
    group "$program" 2 60 NCORE_NCCL_WAIT=stream refused allreduce
    group "$program" 2 60 NCORE_NCCL_WAIT=hybrid refused
    group "$program" 2 60 NCORE_NCCL_SIGNAL_MODE=write refused ring
  else
    echo "FAIL graph_test: $program missing (tests/gpu/build.sh)"
    failed=$((failed + 1))
  fi
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if [[ "$parts" == *" python "* ]]; then
  echo "=== python: test_framework_ranks.py -k cuda_graph"
  if [ -f bindings/python/build/ncore_wrap.c ]; then
    bash bindings/python/build-ext.sh python3 > /dev/null 2>&1 ||
      echo "build-ext.sh failed (the tests say what is missing)"
  fi
  timeout -k 10 400 env PYTHONPATH=bindings/python python3 -m pytest -q -rs \
    -p no:cacheprovider bindings/python/tests/test_framework_ranks.py -k cuda_graph \
    2>&1 | tee "$log"
  count python "$(grep -oE '[0-9]+ passed' "$log" | tail -1 | cut -d' ' -f1)" \
    "$(grep -oE '[0-9]+ (failed|error)' "$log" | awk '{s += $1} END {if (NR) print s}')"
fi
if [[ "$parts" == *" rust "* ]]; then
  echo "=== rust: nccl_graph_capture_on_two_ranks"
  timeout -k 10 240 env NCORE_RUN="$PWD/build/bin/ncore-run" LD_LIBRARY_PATH="$PWD/build/lib" \
    build/bin/rust-nccl-tests nccl_graph_capture_on_two_ranks --exact --test-threads=1 \
    --nocapture 2>&1 | tee "$log"
  line=$(grep -E '^test result:' "$log" | tail -1)
  count rust "$(echo "$line" | grep -oE '[0-9]+ passed' | cut -d' ' -f1)" \
    "$(echo "$line" | grep -oE '[0-9]+ failed' | cut -d' ' -f1)"
fi
if [[ "$parts" == *" go "* ]]; then
  echo "=== go: TestNCCLGraphCapture"
  timeout -k 10 240 build/bin/ncore-go-tests -test.run '^TestNCCLGraphCapture$' -test.v \
    -test.timeout 230s 2>&1 | tee "$log"
  count go "$(grep -c '^--- PASS' "$log")" "$(grep -c '^--- FAIL' "$log")"
  if ! grep -qE '^--- (PASS|FAIL|SKIP)' "$log"; then failed=$((failed + 1)); fi
fi
if [[ "$parts" == *" conformance "* ]]; then
  echo "=== conformance: cuda_graph_*"
  timeout -k 10 300 python3 conformance/run.py --cases 'cuda_graph_*' --max-ranks "$ranks" \
    --languages c,python,rust,go 2>&1 | tee "$log"
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  count conformance "$(echo "$line" | awk '{print $1}')" \
    "$(echo "$line" | awk '{print $3}' | tr -d ,)"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
