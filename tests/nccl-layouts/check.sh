#!/usr/bin/env bash
# Compiles check.cu against every NCCL header set ncore knows
# (header-sets.sh: the CUDA toolkit's 2.28.9, third_party/nccl-headers/,
# ../shared/reference/nccl/ and the folders NCORE_EXTRA_NCCL_HEADERS names;
# CI has no 2.31 / 2.32 set). Each compile is one check; ends with
# "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
passed=0 failed=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sets=$("$here/header-sets.sh") || { echo "0 passed, 1 failed"; exit 1; }
while IFS= read -r inc; do
  version=$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$inc/nccl.h")
  # GIN backends off: the layouts must not depend on them (NCCL's own
  # public build defaults).
  if "$nvcc" -std=c++17 -DNCCL_GIN_GDAKI_ENABLE=0 -DNCCL_GIN_PROXY_ENABLE=1 \
      -DNCCL_GIN_GPI_ENABLE=0 -I"$inc" -I/usr/local/cuda/include \
      -c "$here/check.cu" -o "$out/check.o" 2>"$out/err"; then
    echo "ok layouts match NCCL $version ($inc)"
    passed=$((passed + 1))
  else
    echo "FAIL layouts differ from NCCL $version ($inc):"
    grep -m5 "error" "$out/err"
    failed=$((failed + 1))
  fi
done <<< "$sets"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
