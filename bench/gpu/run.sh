#!/usr/bin/env bash
# bench/gpu/run.sh: the NCCL per-call benchmark (percall.c) on a GPU machine,
# against the machine's NCCL and, when given, other libnccl files; JSON per
# version into OUT (default bench/results). Build it first on any machine
# with CUDA's headers (bench/gpu/build.sh); carry build/bin and build/lib.
# Usage: bench/gpu/run.sh [LIBNCCL ...]
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench/results}
mkdir -p "$out"
for lib in "" "$@"; do
  label=${lib:+$(basename "$lib")}
  label=${label:-default}
  NCORE_NCCL_LIBRARY=$lib NCCL_NVLS_ENABLE=0 build/bin/percall 20000 5 \
    | tee "$out/gpu-percall-$label.json"
done
