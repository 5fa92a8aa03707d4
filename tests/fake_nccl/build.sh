#!/usr/bin/env bash
# Builds the stand-in driver and one stand-in libnccl.so.2 per NCCL header
# set into OUT (default build/fake-nccl): OUT/libcuda.so.1 and
# OUT/<version>/libnccl.so.2 for every NCCL header set
# tests/nccl-layouts/header-sets.sh lists (2.28.9 from the CUDA toolkit,
# the others vendored or in ../shared/reference). Prints the versions built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/build/fake-nccl}
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
mkdir -p "$out"
gcc -std=c11 -O1 -shared -fPIC -fvisibility=hidden -I/usr/local/cuda/include \
    -Wl,-soname,libcuda.so.1 -o "$out/libcuda.so.1" "$here/fake_cuda.c"
sets=$("$root/tests/nccl-layouts/header-sets.sh")
while IFS= read -r inc; do
  code=$(sed -n 's/^#define NCCL_VERSION_CODE \([0-9]*\).*/\1/p' "$inc/nccl.h")
  version="$((code / 10000)).$((code / 100 % 100)).$((code % 100))"
  mkdir -p "$out/$version"
  "$nvcc" -std=c++17 -O1 -shared -Xcompiler -fPIC,-fvisibility=hidden \
      -DNCCL_GIN_GDAKI_ENABLE=0 -DNCCL_GIN_PROXY_ENABLE=1 -DNCCL_GIN_GPI_ENABLE=0 \
      -I"$inc" -I/usr/local/cuda/include -Xlinker -soname=libnccl.so.2 \
      -o "$out/$version/libnccl.so.2" "$here/fake_nccl.cu"
  echo "$version"
done <<< "$sets"
