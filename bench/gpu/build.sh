#!/usr/bin/env bash
# Builds the GPU benchmarks on any machine with CUDA's and NCCL's headers
# (make lib first; no GPU, NCCL or CUDA library needed: everything is loaded
# at run time):
#   build/bin/nccl_bench         raw NCCL against ncore (nccl_bench.c)
#   build/bin/onesided_bench     put_signal against NCCL send/recv and
#                                cudaMemcpyPeerAsync (onesided_bench.cu)
#   build/bin/small_allreduce    small allreduce, eager and graph-replayed:
#                                ncore, ncore on NCCL's kernels, raw NCCL
#                                (small_allreduce.cu)
#   build/lib/callcount.so       its call counter, for --count (callcount.c)
#   build/lib/calltime.so        host time inside NCCL's enqueue calls, by
#                                caller: ncore or raw (calltime.c)
#   build/bin/synchronize_cost   ncore_comm_synchronize's own cost
#                                (synchronize_cost.c)
#   build/bin/bench-rust-gpu, build/bin/bench-go-gpu   the bindings' GPU
#                                benches, when cargo / go are here
# Carry build/ to the GPU machine and run bench/gpu/run-all.sh there.
set -euo pipefail
cd "$(dirname "$0")/../.."
gen=build/bench-gpu
mkdir -p build/bin build/lib "$gen"
gcc -std=c11 -O2 -Wall -Wextra -Iabi/include -I/usr/local/cuda/include \
    bench/gpu/nccl_bench.c -o build/bin/nccl_bench -Lbuild/lib -lncore \
    -Wl,-rpath,'$ORIGIN/../lib' -ldl -lm
# No rpath: LD_LIBRARY_PATH picks the libncore it measures (two builds, one run).
gcc -std=c11 -O2 -Wall -Wextra -Iabi/include bench/gpu/entry_cost.c \
    -o build/bin/entry_cost -Lbuild/lib -lncore -Wl,-rpath,'$ORIGIN/../lib'
gcc -std=c11 -O2 -Wall -Wextra -Iabi/include bench/gpu/synchronize_cost.c \
    -o build/bin/synchronize_cost -Lbuild/lib -lncore
# put_signal against raw NCCL send/recv and cudaMemcpyPeerAsync: CUDA C++,
# the runtime linked statically (only the driver is needed where it runs).
/usr/local/cuda/bin/nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -Iabi/include \
    bench/gpu/onesided_bench.cu -o build/bin/onesided_bench -Lbuild/lib -lncore \
    -Xlinker -rpath,'$ORIGIN/../lib' -ldl
strip build/bin/onesided_bench
# Small allreduce, eager and from CUDA graphs (small_allreduce.cu).
/usr/local/cuda/bin/nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -Iabi/include \
    bench/gpu/small_allreduce.cu -o build/bin/small_allreduce -Lbuild/lib -lncore \
    -Xlinker -rpath,'$ORIGIN/../lib' -ldl
strip build/bin/small_allreduce
# The counter's trampolines: slot i adds 1 to callcount_counts[i] and jumps
# to callcount_targets[i] (16 bytes each; no register is touched).
{
  echo '.text'
  for i in $(seq 0 255); do
    printf '.p2align 4\ncallcount_slot_%d:\n  lock incq callcount_counts+%d(%%rip)\n  jmp *callcount_targets+%d(%%rip)\n' \
      "$i" $((8 * i)) $((8 * i))
  done
  echo '.section .data.rel.ro,"aw"'
  echo '.p2align 3'
  echo '.globl callcount_slots'
  echo '.hidden callcount_slots'
  echo 'callcount_slots:'
  for i in $(seq 0 255); do echo "  .quad callcount_slot_$i"; done
  echo '.section .note.GNU-stack,"",@progbits'
} > "$gen/callcount_tramp.S"
gcc -std=c11 -O2 -Wall -Wextra -shared -fPIC bench/gpu/callcount.c \
    "$gen/callcount_tramp.S" -o build/lib/callcount.so -ldl -lpthread
gcc -std=c11 -O2 -Wall -Wextra -shared -fPIC bench/gpu/calltime.c \
    -o build/lib/calltime.so -ldl
if command -v cargo > /dev/null; then
  (cd bench/rust && cargo build --offline --release --quiet --bin ncore-bench-rust-gpu) &&
    cp bench/rust/target/release/ncore-bench-rust-gpu build/bin/bench-rust-gpu
fi
if command -v go > /dev/null; then
  (cd bench/go/gpu && PKG_CONFIG_PATH="$PWD/../../../build/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}" \
     GOFLAGS=-mod=mod GOPROXY=off GOCACHE="${GOCACHE:-/tmp/ncore-go-cache}" \
     go build -o ../../../build/bin/bench-go-gpu .)
fi
echo "built: $(ls build/bin/nccl_bench build/lib/callcount.so build/lib/calltime.so build/bin/bench-*-gpu 2>/dev/null | tr '\n' ' ')"
