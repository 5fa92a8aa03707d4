// tests/gpu/small_coll_cost.cu — what ncore's small-message kernels
// (kernels/small_coll.cu, compiled into this program) cost on their own:
// one GPU, no peers and no NVLink. Every rank's area is a local buffer
// and both rounds' flags are filled with a large epoch, so every flag wait
// passes at once; what is left is the kernel's own work (its code, its
// fences, its copies). The two-shot and the one-shot's flags form are timed
// (the LL forms wait for their peers' lines, which no one writes here),
// launched back to back on one stream without PDL, best of 3 rounds of
// 2000 calls. The results are not checked: the peers' parts are zeros.
// It compiles the kernels' source itself, which only a test may (a
// benchmark uses the library as its users do); tests/gpu/build.sh builds
// it, and tests/gpu/run.sh does not run it: it measures, it checks nothing.
//
// Measured this way on one H200 (session 23, bench/results/gpu-results.md),
// the two-shot cost 20.7 us a call before its bounds and the area's layout
// were computed in 32 bits, 9.9 us after; the one-shot's flags form 5.2.
//
//   build/bin/small_coll_cost [nranks]     (3..8, default 4)
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../kernels/small_coll.cu"

#define CU(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  fprintf(stderr, "small_coll_cost: %s: %s\n", #call, cudaGetErrorString(e_)); exit(1); } } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  if (n < 3 || n > NCORE_SMALL_MAX_RANKS) {
    fprintf(stderr, "usage: small_coll_cost [nranks: 3..%d] (two-shot needs 3)\n",
            NCORE_SMALL_MAX_RANKS);
    return 2;
  }
  size_t area = ncore_small_area_bytes(n);
  char *areas;
  CU(cudaMalloc(&areas, area * n));
  CU(cudaMemset(areas, 0, area * n));
  for (int q = 0; q < n; q++)
    CU(cudaMemset(areas + q * area, 0x3f, 2 * NCORE_SMALL_FLAGS_BYTES));
  void *in, *out;
  CU(cudaMalloc(&in, NCORE_SMALL_ONESHOT_TOTAL));
  CU(cudaMalloc(&out, NCORE_SMALL_ONESHOT_TOTAL));
  CU(cudaMemset(in, 0, NCORE_SMALL_ONESHOT_TOTAL));
  cudaStream_t s;
  CU(cudaStreamCreate(&s));
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  const size_t sizes[] = {8, 1024, 65536, 262144, 1048576};
  for (int twoshot = 1; twoshot >= 0; twoshot--) {
    for (size_t bytes : sizes) {
      if (!twoshot && bytes > ncore_small_oneshot_max(n)) continue;
      ncore_small_args_t a = {};
      a.input = in;
      a.output = out;
      a.count = bytes / 4;
      a.dtype = 7; /* float32, sum */
      a.op = 0;
      a.rank = 0;
      a.nranks = n;
      for (int q = 0; q < n; q++) a.areas[q] = areas + q * area;
      /* The grid the library gives the flags forms. */
      unsigned grid = ncore_small_grid(bytes, 0);
      float best = 1e30f;
      for (int round = 0; round < 3; round++) {
        const int calls = 2000;
        CU(cudaEventRecord(e0, s));
        for (int c = 0; c < calls; c++) {
          if (twoshot) ncore_allreduce_twoshot<<<grid, NCORE_SMALL_THREADS, 0, s>>>(a);
          else ncore_allreduce_oneshot<<<grid, NCORE_SMALL_THREADS, 0, s>>>(a);
        }
        CU(cudaGetLastError());
        CU(cudaEventRecord(e1, s));
        CU(cudaEventSynchronize(e1));
        float ms;
        CU(cudaEventElapsedTime(&ms, e0, e1));
        if (ms * 1000 / calls < best) best = ms * 1000 / calls;
      }
      printf("{\"kernel\": \"%s\", \"ranks\": %d, \"bytes\": %zu, \"grid\": %u, \"us_per_call\": %.2f}\n",
             twoshot ? "twoshot" : "oneshot_flags", n, bytes, grid, best);
    }
  }
  return 0;
}
