#!/usr/bin/env bash
# bench/gpu/run-all.sh: every per-call GPU benchmark (and the multi-GPU
# sweep where there are several GPUs), on a GPU machine, from binaries built
# elsewhere (make lib; bindings/python/test.sh; bench/gpu/build.sh; carry
# build/ and bindings/python/build). JSON into OUT (default /tmp/ncore-bench),
# one file per part, a log per part, machine.txt; then PNGs where matplotlib
# is installed (bench/gpu/plot.py; render them here otherwise).
#   OUT=/path bench/gpu/run-all.sh          (also: tools/gpu-run.sh bench)
# Parts (PARTS picks some): percall (raw NCCL against ncore, 1 rank), count
# (NCCL and driver calls per operation, each side), oversubscribed (2 ranks on
# one GPU: the harness's result checks only, never figures), sweep (sizes 8 B
# to SWEEP_MAX on every GPU; 1 rank where there is one GPU, as a check of the
# mode), python, rust, go (the bindings against the C call). EXTRA_NCCL="LIB
# ..." runs percall again against each of those libnccl.so.2 files
# (gpu-percall-1rank-extra-N.json). Benchmarks never fail on speed; a part
# fails when its program fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/ncore-bench}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0} NCORE_BACKEND=nccl
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
parts=" ${PARTS:-percall count oversubscribed sweep python rust go} "
calls=${CALLS:-20000}
rounds=${ROUNDS:-5}
{
  date -u +"%Y-%m-%d %H:%M UTC"
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1
  grep -m1 'model name' /proc/cpuinfo | cut -d: -f2
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "NCORE_NCCL_LIBRARY=${NCORE_NCCL_LIBRARY:-(search order of core/nccl/nccl_lib.c)}"
} | tee "$out/machine.txt"

# Python with torch (or CuPy) for the Python part: PYTHON, else python3,
# else the torch virtualenv's.
python=${PYTHON:-python3}
if ! "$python" -c 'import torch' 2>/dev/null && ! "$python" -c 'import cupy' 2>/dev/null; then
  for candidate in /opt/torch/.venv/bin/python3 /opt/*/.venv/bin/python3; do
    if [ -x "$candidate" ] && "$candidate" -c 'import torch' 2>/dev/null; then
      python=$candidate
      break
    fi
  done
fi

summary=()
part() { # name limit command...
  local name=$1 limit=$2; shift 2
  [[ "$parts" == *" $name "* ]] || return 0
  echo "######## $name (limit ${limit} s): $*"
  timeout -k 10 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  tail -n 5 "$out/$name.log"
  summary+=("$(printf '%-15s exit %3d' "$name" "$rc")")
}
bench=build/bin/nccl_bench
part percall 180 "$bench" --calls "$calls" --rounds "$rounds" --json "$out/gpu-percall-1rank.json"
i=0
for lib in ${EXTRA_NCCL:-}; do
  i=$((i + 1))
  part percall 180 env NCORE_NCCL_LIBRARY="$lib" "$bench" --calls "$calls" --rounds "$rounds" \
    --json "$out/gpu-percall-1rank-extra-$i.json"
done
part count 120 env LD_PRELOAD="$PWD/build/lib/callcount.so" "$bench" --count --calls 1000 \
  --json "$out/gpu-callcount.json"
part oversubscribed 180 build/bin/ncore-run --oversubscribe -n 2 --timeout 170 -- \
  "$bench" --calls 50 --rounds 1 --json "$out/gpu-oversubscribed-2ranks-check.json"
if [ "$gpus" -ge 2 ]; then
  part sweep 420 build/bin/ncore-run -n "$gpus" --timeout 410 -- "$bench" \
    --sweep "8:${SWEEP_MAX:-1073741824}" --rounds 3 --json "$out/gpu-sweep-${gpus}ranks.json"
else
  part sweep 120 "$bench" --sweep 8:16777216 --rounds 1 --json "$out/gpu-sweep-1rank-check.json"
fi
if [[ "$parts" == *" python "* || "$parts" == *" torch "* ]]; then
  bash bindings/python/build-ext.sh "$python" > "$out/build-ext.log" 2>&1 ||
    echo "build-ext.sh failed with $python: see $out/build-ext.log"
fi
if [ "$gpus" -ge 2 ]; then
  # put_signal against NCCL send/recv and cudaMemcpyPeerAsync (2 GPUs), in
  # each wait mode and without programmatic dependent launch (nopdl); the
  # default over every size.
  part onesided 240 bash -c '
    for wait in ${ONESIDED_WAITS:-default stream hybrid nopdl}; do
      max=16; [ "$wait" = default ] && max=${ONESIDED_MAX:-1073741824}
      unset NCORE_NCCL_WAIT NCORE_NCCL_PDL
      case $wait in
        default) ;;
        nopdl) export NCORE_NCCL_PDL=0 ;;
        *) export NCORE_NCCL_WAIT=$wait ;;
      esac
      timeout 150 build/bin/ncore-run -n 2 --timeout 150 -- build/bin/onesided_bench         --max "$max" --json "'"$out"'/gpu-onesided-2ranks-$wait.json"
    done'
  # ncore allreduce on torch tensors against torch.distributed, one rank per GPU.
  part torch 240 build/bin/ncore-run -n "$gpus" --timeout 230 -- env PYTHONPATH="$PWD/bindings/python" "$python" \
    bench/python/allreduce_vs_torch.py --max "${TORCH_MAX:-1073741824}" \
    --json "$out/python-allreduce-vs-torch-${gpus}ranks.json"
fi
part python 300 "$python" bench/python/gpu_overhead.py --calls "$calls" --rounds "$rounds" \
  --json "$out/python-gpu.json"
# Their run paths name the build machine's folders: the library comes from here.
part rust 120 env LD_LIBRARY_PATH="$PWD/build/lib" sh -c "build/bin/bench-rust-gpu > '$out/rust-gpu.json'"
part go 120 env LD_LIBRARY_PATH="$PWD/build/lib" sh -c "build/bin/bench-go-gpu > '$out/go-gpu.json'"
if python3 -c 'import matplotlib' 2>/dev/null; then
  python3 bench/gpu/plot.py "$out" --into "$out" > "$out/tables.md" 2> "$out/plot.log" ||
    echo "plot.py failed: see $out/plot.log"
fi
echo "######## summary"
printf '%s\n' "${summary[@]}" | tee "$out/summary.txt"
