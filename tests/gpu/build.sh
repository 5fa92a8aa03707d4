#!/usr/bin/env bash
# tests/gpu/build.sh: builds the test programs of tests/gpu (CUDA and C) into
# build/bin with nvcc (here, without a GPU), linked against build/lib's
# libncore with a run path relative to the binary ($ORIGIN/../lib), and the
# CUDA runtime linked statically: carried to a GPU machine, they need only
# the driver and the build/ folder they came with.
set -euo pipefail
cd "$(dirname "$0")/../.."
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
[ -f build/lib/libncore.so ] || { echo "build.sh: make lib first" >&2; exit 2; }
mkdir -p build/bin
for source in tests/gpu/*.cu tests/gpu/*.c; do
  name=$(basename "${source%.*}")
  case $name in
    # Raw NCCL, no ncore: links the NCCL it was built against here
    # (2.28.9); the GPU machine's is found through LD_LIBRARY_PATH.
    nccl_*) "$nvcc" -O2 -std=c++17 -arch=sm_90 -cudart static "$source" \
              -o "build/bin/$name" -L/usr/local/cuda/lib64 -lnccl ;;
    *) "$nvcc" -O2 -arch=sm_90 -cudart static -Iabi/include "$source" \
         -o "build/bin/$name" -Lbuild/lib -lncore -Xlinker -rpath,'$ORIGIN/../lib' ;;
  esac
  strip "build/bin/$name"
  echo "build/bin/$name"
done
