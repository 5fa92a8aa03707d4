#!/usr/bin/env bash
# tools/gpu-run.sh: everything ncore checks on a GPU machine, in one go, from
# binaries built elsewhere (make lib; carry build/): the C tests on the NCCL
# backend, the NCCL smoke test, the demo and the conformance suite (C runner;
# other runners when built). Each part's log goes to $OUT (or /tmp/ncore-gpu),
# and the last lines summarise them. Usage: tools/gpu-run.sh [RANKS]
# (RANKS defaults to the number of GPUs). PARTS picks the parts (default:
# "c-tests demo smoke conformance python rust rust-example go"); C_TESTS_LIMIT bounds
# the C tests (s). The binding parts need what test.sh built here, carried:
# bindings/python/build (SWIG output, compiled there by build-ext.sh),
# build/bin/rust-nccl-tests (the ncore crate's tests/nccl.rs binary),
# build/bin/rust-service (its service example) and
# build/bin/ncore-go-orchestrator.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/ncore-gpu}
mkdir -p "$out"
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
ranks=${1:-$gpus}
export NCCL_NVLS_ENABLE=0 NCORE_BACKEND=nccl
if [ -z "${NCORE_NCCL_LIBRARY:-}" ]; then
  for candidate in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/cuda/lib64/libnccl.so.2; do
    if [ -f "$candidate" ]; then export NCORE_NCCL_LIBRARY=$candidate; break; fi
  done
fi
{
  date -u +"%Y-%m-%d %H:%M UTC"
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
  echo "NCORE_NCCL_LIBRARY=${NCORE_NCCL_LIBRARY:-(search)} ranks=$ranks"
} | tee "$out/machine.txt"

summary=()
parts=" ${PARTS:-c-tests demo smoke conformance python rust rust-example go} "
part() { # name timeout command...
  local name=$1 limit=$2; shift 2
  [[ "$parts" == *" $name "* ]] || return 0
  echo "######## $name: $*"
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$out/$name.log"
  summary+=("$(printf '%-14s exit %3d  %s' "$name" "$rc" "$(grep -E '[0-9]+ passed' "$out/$name.log" | tail -1)")")
}
part c-tests "${C_TESTS_LIMIT:-300}" env SKIP_HOST=1 RANKS="$ranks" PROGRAM_TIMEOUT=60 tests/run.sh build
part demo 45 build/bin/ncore-run -n "$ranks" --timeout 45 build/bin/ncore-demo
part smoke 90 tools/gpu-smoke/run.sh
part python 150 bash -c 'bash bindings/python/build-ext.sh python3 &&
  env -u NCORE_BACKEND PYTHONPATH=bindings/python python3 -m pytest -q -p no:cacheprovider bindings/python/tests'
part rust 60 env LD_LIBRARY_PATH=build/lib build/bin/rust-nccl-tests --test-threads=1
part rust-example 30 env LD_LIBRARY_PATH=build/lib build/bin/ncore-run -n "$ranks" -- build/bin/rust-service
part go 60 build/bin/ncore-go-orchestrator -n "$ranks"
part conformance 150 python3 conformance/run.py --max-ranks "$ranks" --languages "${LANGUAGES:-c}"
echo "######## summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
