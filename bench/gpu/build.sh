#!/usr/bin/env bash
# Builds bench/gpu/percall.c into build/bin/percall against build/lib's
# libncore (make lib first) and CUDA's headers; links the driver's stub.
set -euo pipefail
cd "$(dirname "$0")/../.."
gcc -std=c11 -O2 -Wall -Iabi/include -I/usr/local/cuda/include bench/gpu/percall.c \
    -o build/bin/percall -Lbuild/lib -lncore -Wl,-rpath,'$ORIGIN/../lib' \
    -L/usr/local/cuda/lib64/stubs -lcuda -ldl
