// kernels/small_coll.cu — ncore's small-message allreduce between the ranks
// of one LSA team (NVLink), through each rank's area in its signal window
// (kernels/small_coll.h: the layout and why reusing it is safe).
//
// One-shot: every block copies its part of the input into this rank's
// staging buffer, tells every peer (a release store of the call's epoch
// into the peer's flag for this rank and block), waits until every peer
// told it the same, then reads that part from every rank's staging buffer
// and reduces it, in rank order 0, 1, ..., n-1 on every rank.
// Two-shot: the same first round, then each rank reduces only its slice
// (rank order again) into its result buffer, a second round of flags, and
// every rank copies every rank's reduced slice to its output.
// Either way every rank computes the same elements in the same order from
// the same bytes, so every rank's output is bitwise the same. Half and
// bfloat16 accumulate in float (rounded once, at the end), so the results
// may differ from NCCL's ring in the last bits; max / min follow NCCL
// (IEEE maxNum / minNum: a NaN loses against a number).
//
// Waits sleep between reads and are released by an abort, which fills this
// rank's flags with 0x7f bytes (nccl_signals_abandon): nothing here spins
// where an NCCL kernel would have to preempt it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "small_coll.h"

namespace ncore_small {

__device__ __forceinline__ void store_release(unsigned long long *p,
                                              unsigned long long v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v)
               : "memory");
}

__device__ __forceinline__ unsigned long long load_acquire(
    const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

// Waits until *p reaches epoch (wrap-safe), reading every ~32 ns at first,
// then sleeping up to 2 us between reads.
__device__ __forceinline__ void wait_for(const unsigned long long *p,
                                         unsigned long long epoch) {
  unsigned sleep_ns = 32;
  int reads = 0;
  while ((long long)(load_acquire(p) - epoch) < 0) {
    if (++reads > 256 && sleep_ns < 2048) sleep_ns *= 2;
    __nanosleep(sleep_ns);
  }
}

// Round `round`: this block tells every rank its part of epoch is ready,
// then waits for every rank's word for the same part. Thread t < nranks
// handles rank t; the barriers order the block's other threads' stores
// before the release (it is cumulative) and the acquires before their
// loads.
__device__ __forceinline__ void exchange_flags(const ncore_small_args_t &a,
                                               int round,
                                               unsigned long long epoch) {
  __syncthreads();
  int t = threadIdx.x;
  if (t < a.nranks) {
    size_t slot = ((size_t)a.rank * NCORE_SMALL_MAX_BLOCKS + blockIdx.x) * 8;
    store_release((unsigned long long *)(a.areas[t] + NCORE_SMALL_FLAGS_OFFSET(round) + slot),
                  epoch);
    size_t mine = ((size_t)t * NCORE_SMALL_MAX_BLOCKS + blockIdx.x) * 8;
    wait_for((const unsigned long long *)(a.areas[a.rank] + NCORE_SMALL_FLAGS_OFFSET(round) + mine),
             epoch);
  }
  __syncthreads();
}

// One element from L2 (2-byte types have no __ldcg of their own).
template <typename T> __device__ __forceinline__ T load_cg(const T *p) { return __ldcg(p); }
template <> __device__ __forceinline__ __half load_cg<__half>(const __half *p) {
  unsigned short bits = __ldcg((const unsigned short *)p);
  return *(const __half *)&bits;
}
template <> __device__ __forceinline__ __nv_bfloat16 load_cg<__nv_bfloat16>(
    const __nv_bfloat16 *p) {
  unsigned short bits = __ldcg((const unsigned short *)p);
  return *(const __nv_bfloat16 *)&bits;
}

// The element types, with the type they are reduced in.
template <typename T> struct Acc { typedef T type; };
template <> struct Acc<__half> { typedef float type; };
template <> struct Acc<__nv_bfloat16> { typedef float type; };

template <typename T> __device__ __forceinline__ typename Acc<T>::type up(T x) { return x; }
template <> __device__ __forceinline__ float up<__half>(__half x) { return __half2float(x); }
template <> __device__ __forceinline__ float up<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
template <typename T> __device__ __forceinline__ T down(typename Acc<T>::type x) { return x; }
template <> __device__ __forceinline__ __half down<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ __nv_bfloat16 down<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// ncore's op values (= NCCL's): 0 sum, 1 prod, 2 max, 3 min.
template <int OP, typename A> struct Apply {
  static __device__ __forceinline__ A run(A x, A y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x * y;
    if (OP == 2) return x > y ? x : y;
    return x < y ? x : y;
  }
};
template <int OP> struct Apply<OP, float> {
  static __device__ __forceinline__ float run(float x, float y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x * y;
    if (OP == 2) return fmaxf(x, y);
    return fminf(x, y);
  }
};
template <int OP> struct Apply<OP, double> {
  static __device__ __forceinline__ double run(double x, double y) {
    if (OP == 0) return x + y;
    if (OP == 1) return x * y;
    if (OP == 2) return fmax(x, y);
    return fmin(x, y);
  }
};

// Elements [lo, hi) of the call: element i of rank q's buffer at byte
// offset `from` of its area, reduced over ranks 0..n-1 into dst
// (dst_aligned: dst + lo is 16-byte aligned). lo is a multiple of a
// vector's elements.
template <typename T, int OP>
__device__ __forceinline__ void reduce_range(const ncore_small_args_t &a,
                                             unsigned long long from, T *dst,
                                             bool dst_aligned, size_t lo,
                                             size_t hi) {
  typedef typename Acc<T>::type A;
  const int V = 16 / sizeof(T);
  size_t vectors_end = lo + (hi - lo) / V * V;
  if (!dst_aligned) vectors_end = lo;
  for (size_t i = lo + (size_t)threadIdx.x * V; i < vectors_end;
       i += (size_t)blockDim.x * V) {
    A acc[V];
    // __ldcg: from L2 (a peer's, over NVLink), never a stale L1 line.
    uint4 v = __ldcg((const uint4 *)(a.areas[0] + from + i * sizeof(T)));
    const T *e = (const T *)&v;
#pragma unroll
    for (int k = 0; k < V; k++) acc[k] = up<T>(e[k]);
    for (int q = 1; q < a.nranks; q++) {
      uint4 w = __ldcg((const uint4 *)(a.areas[q] + from + i * sizeof(T)));
      const T *f = (const T *)&w;
#pragma unroll
      for (int k = 0; k < V; k++) acc[k] = Apply<OP, A>::run(acc[k], up<T>(f[k]));
    }
    uint4 out;
    T *o = (T *)&out;
#pragma unroll
    for (int k = 0; k < V; k++) o[k] = down<T>(acc[k]);
    *(uint4 *)(dst + i) = out;
  }
  for (size_t i = vectors_end + threadIdx.x; i < hi; i += blockDim.x) {
    A acc = up<T>(load_cg((const T *)(a.areas[0] + from + i * sizeof(T))));
    for (int q = 1; q < a.nranks; q++)
      acc = Apply<OP, A>::run(acc, up<T>(load_cg((const T *)(a.areas[q] + from + i * sizeof(T)))));
    dst[i] = down<T>(acc);
  }
}

// Copies bytes [lo, hi) (lo a multiple of 16) from src to dst, by 16
// bytes where both are aligned.
__device__ __forceinline__ void copy_range(char *dst, const char *src,
                                           size_t lo, size_t hi) {
  bool aligned = (((uintptr_t)dst | (uintptr_t)src) & 15) == 0;
  size_t vectors_end = aligned ? lo + (hi - lo) / 16 * 16 : lo;
  for (size_t i = lo + (size_t)threadIdx.x * 16; i < vectors_end;
       i += (size_t)blockDim.x * 16)
    *(uint4 *)(dst + i) = __ldcg((const uint4 *)(src + i));
  for (size_t i = vectors_end + threadIdx.x; i < hi; i += blockDim.x)
    dst[i] = (char)__ldcg((const signed char *)(src + i));
}

// [lo, hi) in elements of part `part` of `parts` over `units` vectors of
// V elements, the last part ending at count.
__device__ __forceinline__ void part_bounds(size_t units, int parts, int part,
                                            int V, size_t first_unit,
                                            size_t count, size_t *lo,
                                            size_t *hi) {
  size_t per = (units + parts - 1) / parts;
  size_t begin = first_unit + per * part, end = begin + per;
  size_t last = first_unit + units;
  if (begin > last) begin = last;
  if (end > last) end = last;
  *lo = begin * V < count ? begin * V : count;
  *hi = end * V < count ? end * V : count;
}

// The call's epoch: this rank's count of calls plus one (all blocks read
// it before the last one to end advances it).
__device__ __forceinline__ unsigned long long epoch_of(const ncore_small_args_t &a) {
  return *(volatile unsigned long long *)(a.areas[a.rank] + NCORE_SMALL_EPOCH_OFFSET) + 1;
}

// The last block to end advances this rank's epoch for the next call
// (which starts after this kernel ended: stream order).
__device__ __forceinline__ void end_call(const ncore_small_args_t &a,
                                         unsigned long long epoch) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned *done = (unsigned *)(a.areas[a.rank] + NCORE_SMALL_DONE_OFFSET);
  __threadfence();
  if (atomicAdd(done, 1u) == (unsigned)gridDim.x - 1) {
    *done = 0;
    *(volatile unsigned long long *)(a.areas[a.rank] + NCORE_SMALL_EPOCH_OFFSET) = epoch;
  }
}

template <typename T, int OP>
__device__ void oneshot(const ncore_small_args_t &a) {
  const int V = 16 / sizeof(T);
  unsigned long long epoch = epoch_of(a);
  unsigned long long data = NCORE_SMALL_DATA(epoch & 1, a.staging);
  size_t units = (a.count + V - 1) / V, lo, hi;
  part_bounds(units, gridDim.x, blockIdx.x, V, 0, a.count, &lo, &hi);
  copy_range(a.areas[a.rank] + data, (const char *)a.input, lo * sizeof(T),
             hi * sizeof(T));
  exchange_flags(a, 0, epoch);
  T *out = (T *)a.output;
  reduce_range<T, OP>(a, data, out, (((uintptr_t)out) & 15) == 0, lo, hi);
  end_call(a, epoch);
}

template <typename T, int OP>
__device__ void twoshot(const ncore_small_args_t &a) {
  const int V = 16 / sizeof(T);
  unsigned long long epoch = epoch_of(a);
  unsigned long long data = NCORE_SMALL_DATA(epoch & 1, a.staging);
  unsigned long long result = NCORE_SMALL_RESULT(epoch & 1, a.staging);
  size_t units = (a.count + V - 1) / V;
  size_t per_slice = (units + a.nranks - 1) / a.nranks;
  // Round 1: this block's part of every slice staged.
  for (int s = 0; s < a.nranks; s++) {
    size_t first = per_slice * s, n = first < units ? per_slice : 0, lo, hi;
    if (first + n > units) n = units - first;
    part_bounds(n, gridDim.x, blockIdx.x, V, first, a.count, &lo, &hi);
    copy_range(a.areas[a.rank] + data, (const char *)a.input, lo * sizeof(T),
               hi * sizeof(T));
  }
  exchange_flags(a, 0, epoch);
  // This rank's slice reduced into its result buffer, at the slice's
  // offset there (so peers find slice s at s's offset of rank s's result).
  {
    size_t first = per_slice * a.rank, n = first < units ? per_slice : 0, lo, hi;
    if (first + n > units) n = units - first;
    part_bounds(n, gridDim.x, blockIdx.x, V, first, a.count, &lo, &hi);
    reduce_range<T, OP>(a, data, (T *)(a.areas[a.rank] + result), true, lo, hi);
  }
  exchange_flags(a, 1, epoch);
  // Every rank's slice from its result buffer to the output.
  for (int s = 0; s < a.nranks; s++) {
    size_t first = per_slice * s, n = first < units ? per_slice : 0, lo, hi;
    if (first + n > units) n = units - first;
    part_bounds(n, gridDim.x, blockIdx.x, V, first, a.count, &lo, &hi);
    copy_range((char *)a.output, a.areas[s] + result, lo * sizeof(T), hi * sizeof(T));
  }
  end_call(a, epoch);
}

// dtype x op -> the instance, ncore's (= NCCL's) values. The host only
// launches supported pairs (core/nccl/small_coll.c).
template <template <typename, int> class Run>
struct Dispatch {
  template <typename T>
  static __device__ void by_op(const ncore_small_args_t &a) {
    switch (a.op) {
      case 0: Run<T, 0>::go(a); break;
      case 1: Run<T, 1>::go(a); break;
      case 2: Run<T, 2>::go(a); break;
      case 3: Run<T, 3>::go(a); break;
    }
  }
  static __device__ void go(const ncore_small_args_t &a) {
    switch (a.dtype) {
      case 2: by_op<int32_t>(a); break;
      case 3: by_op<uint32_t>(a); break;
      case 4: by_op<int64_t>(a); break;
      case 5: by_op<uint64_t>(a); break;
      case 6: by_op<__half>(a); break;
      case 7: by_op<float>(a); break;
      case 8: by_op<double>(a); break;
      case 9: by_op<__nv_bfloat16>(a); break;
    }
  }
};

template <typename T, int OP> struct OneShot {
  static __device__ void go(const ncore_small_args_t &a) { oneshot<T, OP>(a); }
};
template <typename T, int OP> struct TwoShot {
  static __device__ void go(const ncore_small_args_t &a) { twoshot<T, OP>(a); }
};

}  // namespace ncore_small

extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allreduce_oneshot(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::OneShot>::go(a);
}

extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allreduce_twoshot(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::TwoShot>::go(a);
}
