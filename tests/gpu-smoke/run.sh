#!/bin/sh
# tests/gpu-smoke/run.sh — builds and runs the two-rank NCCL-backend smoke
# test (smoke_nccl.c) against a prebuilt libncore.so, on a machine with two
# GPUs. Usage, from anywhere:
#   tests/gpu-smoke/run.sh [path/to/libncore.so]
# Default library: <repo>/build/lib/libncore.so. NCCL: NCORE_NCCL_LIBRARY if
# set, else ncore's own search (loader path, /usr/local/cuda/lib64, the pip
# package nvidia-nccl-cu* in site-packages); this script exports the pip path
# it finds so the run does not depend on the search. The test runs four times:
# the default signal protocol, then NCORE_NCCL_SIGNAL_MODE=write,
# NCORE_NCCL_WAIT=stream, and NCORE_NCCL_PUT_KERNEL_MAX=0 (copy engine only).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
lib=${1:-$repo/build/lib/libncore.so}
[ -f "$lib" ] || { echo "run.sh: $lib not found (make lib first)" >&2; exit 2; }
out=${TMPDIR:-/tmp}/ncore-gpu-smoke
mkdir -p "$out"
# Built here unless a prebuilt one was carried (build/bin/smoke_nccl).
if [ -x "$repo/build/bin/smoke_nccl" ]; then
  cp "$repo/build/bin/smoke_nccl" "$out/smoke_nccl"
else
  ${CC:-gcc} -std=c11 -O1 -g -Wall -Wextra -D_GNU_SOURCE -I"$repo/abi/include" \
      "$here/smoke_nccl.c" -o "$out/smoke_nccl" "$lib" -Wl,-rpath,"$(dirname "$lib")"
fi

if [ -z "${NCORE_NCCL_LIBRARY:-}" ]; then
  for candidate in /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/lib/python3*/dist-packages/nvidia/nccl/lib/libnccl.so.2 \
                   /usr/local/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2; do
    if [ -f "$candidate" ]; then export NCORE_NCCL_LIBRARY="$candidate"; break; fi
  done
fi
echo "run.sh: libncore: $lib"
echo "run.sh: NCCL: ${NCORE_NCCL_LIBRARY:-(ncore's search)}"
nvidia-smi -L 2>/dev/null || true

status=0
run() {
  echo "=== smoke_nccl $* ==="
  if env "$@" timeout 20 "$out/smoke_nccl"; then :; else status=1; fi
}
run NCCL_DEBUG=${NCCL_DEBUG:-WARN}
run NCORE_NCCL_SIGNAL_MODE=write
run NCORE_NCCL_WAIT=stream
run NCORE_NCCL_PUT_KERNEL_MAX=0
[ $status -eq 0 ] && echo "run.sh: all PASSED" || echo "run.sh: FAILED"
exit $status
