// kernels/small_coll.cu — ncore's small-message allreduce between the ranks
// of one LSA team (NVLink), through each rank's area in its signal window
// (kernels/small_coll.h: the layout and why reusing it is safe). Data moves
// by stores into the receiver's area (one way over NVLink); every load is
// local.
//
// One-shot: every block writes its part of the input into every rank's
// in1 slot for this rank, tells each rank (a release store of the call's
// epoch into the rank's flag for this rank and block), waits until every
// rank told it the same, then reduces that part of every rank's input from
// its own area, in rank order 0, 1, ..., n-1. Up to NCORE_SMALL_LL_TOTAL /
// n bytes a rank it sends in LL form instead (oneshot_ll): the data carries
// the epoch, so no flags round and no fence: one trip over NVLink.
// Two-shot: every block writes its part of each slice s into rank s's in2
// slot for this rank, the same flags, then reduces its part of this rank's
// slice (rank order again) and writes the result into every rank's res
// slot for this rank, a second round of flags, and every rank copies every
// slice from its own res slots to its output.
// Either way every element is computed in the same order from the same
// bytes, so every rank's output is bitwise the same. Half and bfloat16
// accumulate in float (rounded once, at the end), so the results may
// differ from NCCL's ring in the last bits; max / min follow NCCL (IEEE
// maxNum / minNum: a NaN loses against a number).
//
// The kernels are launched with programmatic dependent launch
// (core/nccl/kernels.c): each waits for the grid before it to end before it
// touches anything, and lets the next one be scheduled at once.
// Waits sleep between reads and are released by an abort, which fills this
// rank's flags with 0x7f bytes (nccl_signals_abandon): nothing here spins
// where an NCCL kernel would have to preempt it.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "small_coll.h"

namespace ncore_small {

// a.areas[q] without indexing the kernel's parameter by a run-time value
// (which makes the compiler copy the whole argument to local memory first).
__device__ __forceinline__ char *area_of(const ncore_small_args_t &a, int q) {
  char *p = a.areas[0];
#pragma unroll
  for (int k = 1; k < NCORE_SMALL_MAX_RANKS; k++)
    if (q == k) p = a.areas[k];
  return p;
}

// Reads a wait makes back to back before it starts to sleep between them.
#define NCORE_SMALL_SPIN_READS 4096

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

// Waits until *p reaches epoch (wrap-safe): reads back to back at first
// (a peer is usually a microsecond away), then sleeps between reads,
// doubling up to 2 us, so a late peer costs an SM slot and no bandwidth.
__device__ __forceinline__ void wait_for(const unsigned long long *p,
                                         unsigned long long epoch) {
  unsigned sleep_ns = 32;
  int reads = 0;
  while ((long long)(load_acquire(p) - epoch) < 0) {
    if (++reads < NCORE_SMALL_SPIN_READS) continue;
    if (sleep_ns < 2048) sleep_ns *= 2;
    __nanosleep(sleep_ns);
  }
}

// Round `round`: this block tells every rank it finished writing there,
// then waits until every rank told it the same. Thread t < nranks handles
// rank t; the barriers order the block's other threads' stores before the
// release (which is cumulative) and the acquires before their loads.
__device__ __forceinline__ void exchange_flags(const ncore_small_args_t &a,
                                               int round,
                                               unsigned long long epoch) {
  __syncthreads();
  int t = threadIdx.x;
  if (t < a.nranks) {
    size_t slot = ((size_t)a.rank * NCORE_SMALL_MAX_BLOCKS + blockIdx.x) * 8;
    store_release((unsigned long long *)(area_of(a, t) + NCORE_SMALL_FLAGS_OFFSET(round) + slot),
                  epoch);
    size_t mine = ((size_t)t * NCORE_SMALL_MAX_BLOCKS + blockIdx.x) * 8;
    wait_for((const unsigned long long *)(area_of(a, a.rank) + NCORE_SMALL_FLAGS_OFFSET(round) + mine),
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

// Writes elements [lo, hi) of src (element i of src at byte i * sizeof(T)
// from src) to byte offset `slot` + (i - base) * sizeof(T) of every rank's
// area: the input fanned out. lo - base is a multiple of a vector.
template <typename T>
__device__ __forceinline__ void scatter_to_all(const ncore_small_args_t &a,
                                               const T *src, size_t base,
                                               unsigned long long slot,
                                               size_t lo, size_t hi) {
  const int V = 16 / sizeof(T);
  bool aligned = (((uintptr_t)(src + lo)) & 15) == 0;
  size_t vectors_end = aligned ? lo + (hi - lo) / V * V : lo;
  for (size_t i = lo + (size_t)threadIdx.x * V; i < vectors_end;
       i += (size_t)blockDim.x * V) {
    uint4 v = __ldcg((const uint4 *)(src + i));
    size_t at = slot + (i - base) * sizeof(T);
    for (int q = 0; q < a.nranks; q++) *(uint4 *)(area_of(a, q) + at) = v;
  }
  for (size_t i = vectors_end + threadIdx.x; i < hi; i += blockDim.x) {
    T v = load_cg(src + i);
    size_t at = slot + (i - base) * sizeof(T);
    for (int q = 0; q < a.nranks; q++) *(T *)(area_of(a, q) + at) = v;
  }
}

// Elements [lo, hi): element i at byte offset slot(q) + (i - base) *
// sizeof(T) of this rank's area, reduced over q = 0..n-1, to dst[i - base]
// of every dst (ndst of them; dst 16-byte aligned at lo - base, or not).
template <typename T, int OP>
__device__ __forceinline__ void reduce_local(const ncore_small_args_t &a,
                                             const unsigned long long *slots,
                                             size_t base, T *const *dst,
                                             int ndst, size_t lo, size_t hi) {
  typedef typename Acc<T>::type A;
  const int V = 16 / sizeof(T);
  const char *mine = area_of(a, a.rank);
  bool aligned = true;
  for (int d = 0; d < ndst; d++) aligned &= (((uintptr_t)(dst[d] + (lo - base))) & 15) == 0;
  size_t vectors_end = aligned ? lo + (hi - lo) / V * V : lo;
  for (size_t i = lo + (size_t)threadIdx.x * V; i < vectors_end;
       i += (size_t)blockDim.x * V) {
    size_t at = (i - base) * sizeof(T);
    A acc[V];
    uint4 v = __ldcg((const uint4 *)(mine + slots[0] + at));
    const T *e = (const T *)&v;
#pragma unroll
    for (int k = 0; k < V; k++) acc[k] = up<T>(e[k]);
    for (int q = 1; q < a.nranks; q++) {
      uint4 w = __ldcg((const uint4 *)(mine + slots[q] + at));
      const T *f = (const T *)&w;
#pragma unroll
      for (int k = 0; k < V; k++) acc[k] = Apply<OP, A>::run(acc[k], up<T>(f[k]));
    }
    uint4 out;
    T *o = (T *)&out;
#pragma unroll
    for (int k = 0; k < V; k++) o[k] = down<T>(acc[k]);
    for (int d = 0; d < ndst; d++) *(uint4 *)(dst[d] + (i - base)) = out;
  }
  for (size_t i = vectors_end + threadIdx.x; i < hi; i += blockDim.x) {
    size_t at = (i - base) * sizeof(T);
    A acc = up<T>(load_cg((const T *)(mine + slots[0] + at)));
    for (int q = 1; q < a.nranks; q++)
      acc = Apply<OP, A>::run(acc, up<T>(load_cg((const T *)(mine + slots[q] + at))));
    for (int d = 0; d < ndst; d++) dst[d][i - base] = down<T>(acc);
  }
}

// [lo, hi) in elements of part `part` of `parts` over `units` vectors of
// V elements from vector first_unit, the last part ending at count. The
// division is 32-bit (a call of the path is a few MiB at most): a 64-bit
// one is a long subroutine on the GPU, on every call's path.
__device__ __forceinline__ void part_bounds(size_t units, int parts, int part,
                                            int V, size_t first_unit,
                                            size_t count, size_t *lo,
                                            size_t *hi) {
  size_t per = (unsigned)(units + parts - 1) / (unsigned)parts;
  size_t begin = first_unit + per * part, end = begin + per;
  size_t last = first_unit + units;
  if (begin > last) begin = last;
  if (end > last) end = last;
  *lo = begin * V < count ? begin * V : count;
  *hi = end * V < count ? end * V : count;
}

// Programmatic dependent launch: wait for the grid before this one (its end
// and its memory), then let the next one be scheduled.
__device__ __forceinline__ unsigned long long begin_call(const ncore_small_args_t &a) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  // The call's epoch: this rank's count of calls plus one, from this
  // block's own copy (end_call keeps every copy current).
  return *(volatile unsigned long long *)(area_of(a, a.rank) + NCORE_SMALL_EPOCH_OFFSET +
                                          8ull * blockIdx.x) + 1;
}

// Advances this rank's epoch for the next call, whose grid may be larger:
// block b writes the copies b, b + grid, b + 2 grid, ... so that every copy
// is written once, with no counter shared between blocks (an atomic and a
// fence on every call's path). The next call reads them only after this
// grid ended (begin_call's wait, or plain stream order), and no block of
// this call reads a copy another block writes.
__device__ __forceinline__ void end_call(const ncore_small_args_t &a,
                                         unsigned long long epoch) {
  __syncthreads();
  unsigned copy = blockIdx.x + threadIdx.x * gridDim.x;
  if (copy < NCORE_SMALL_MAX_BLOCKS)
    *(volatile unsigned long long *)(area_of(a, a.rank) + NCORE_SMALL_EPOCH_OFFSET +
                                     8ull * copy) = epoch;
}

template <typename T, int OP>
__device__ void oneshot(const ncore_small_args_t &a) {
  const int V = 16 / sizeof(T);
  unsigned long long epoch = begin_call(a);
  int parity = (int)(epoch & 1);
  size_t units = (a.count + V - 1) / V, lo, hi;
  part_bounds(units, gridDim.x, blockIdx.x, V, 0, a.count, &lo, &hi);
  scatter_to_all(a, (const T *)a.input, 0, ncore_small_in1(a.nranks, parity, a.rank), lo, hi);
  exchange_flags(a, 0, epoch);
  unsigned long long slots[NCORE_SMALL_MAX_RANKS];
  for (int q = 0; q < a.nranks; q++) slots[q] = ncore_small_in1(a.nranks, parity, q);
  T *out = (T *)a.output;
  reduce_local<T, OP>(a, slots, 0, &out, 1, lo, hi);
  end_call(a, epoch);
}

// LL one-shot: every 8 bytes of input travel as one 16-byte line {d0, e,
// d1, e}, e the call's epoch (low 32 bits), stored into every rank's ll
// slot for this rank; a reader takes a line once both its flags say e (an
// 8-byte half is never torn, so a line seen half old is read again).
// Thread t of a pass handles line t: a warp's stores and loads are 512
// contiguous bytes. The slot's last contents are two calls old (flags
// e - 2), so no reset is needed.
__device__ __forceinline__ void ll_store(char *p, uint2 d, unsigned e) {
  asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p),
               "r"(d.x), "r"(e), "r"(d.y), "r"(e) : "memory");
}

__device__ __forceinline__ uint4 ll_line(const char *p) {
  uint4 v;
  asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ bool ll_ready(uint4 v, unsigned e) {
  return v.y == e && v.w == e;
}

// An abort filled this rank's flags with 0x7f bytes (kernels/small_coll.h).
__device__ __forceinline__ bool aborted(const ncore_small_args_t &a) {
  return *(volatile unsigned long long *)(area_of(a, a.rank) + NCORE_SMALL_FLAGS_OFFSET(0)) ==
         0x7f7f7f7f7f7f7f7full;
}

// Line `line` of every rank's input, once each arrived (or the
// communicator was aborted: then whatever is there). All ranks' lines are
// asked at once, so their load latencies overlap.
__device__ __forceinline__ void ll_gather(const ncore_small_args_t &a, int parity,
                                          size_t line, unsigned e, uint2 *d) {
  const char *mine = area_of(a, a.rank);
  uint4 v[NCORE_SMALL_MAX_RANKS];
#pragma unroll
  for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++)
    if (q < a.nranks) v[q] = ll_line(mine + ncore_small_ll(a.nranks, parity, q) + line * 16);
#pragma unroll
  for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++) {
    if (q >= a.nranks) break;
    const char *p = mine + ncore_small_ll(a.nranks, parity, q) + line * 16;
    unsigned sleep_ns = 32;
    for (int reads = 0; !ll_ready(v[q], e);) {
      v[q] = ll_line(p);
      if (++reads < NCORE_SMALL_SPIN_READS) continue;
      if ((reads & 63) == 0 && aborted(a)) break;
      if (sleep_ns < 2048) sleep_ns *= 2;
      __nanosleep(sleep_ns);
    }
    d[q] = make_uint2(v[q].x, v[q].z);
  }
}

// 8 bytes of src from byte `at` (up to `bytes`, zeros past it), as one
// load where they are whole and aligned.
__device__ __forceinline__ uint2 load8(const char *src, size_t at, size_t bytes) {
  if (at + 8 <= bytes && (((uintptr_t)(src + at)) & 7) == 0)
    return __ldcg((const uint2 *)(src + at));
  uint2 v = make_uint2(0, 0);
  unsigned char *b = (unsigned char *)&v;
  for (size_t k = 0; k < 8 && at + k < bytes; k++) b[k] = src[at + k];
  return v;
}

// Stores 8 bytes (or the first `n` of them) at p, as one store where whole
// and aligned.
__device__ __forceinline__ void store8(char *p, uint2 v, size_t n) {
  if (n >= 8 && (((uintptr_t)p) & 7) == 0) {
    *(uint2 *)p = v;
    return;
  }
  const unsigned char *b = (const unsigned char *)&v;
  for (size_t k = 0; k < 8 && k < n; k++) p[k] = b[k];
}

// An LL call: its epoch, the parity of its slots, the flag its lines carry
// and this block's lines [lo, hi) of `bytes` (8 bytes a line).
struct LLCall {
  unsigned long long epoch;
  int parity;
  unsigned e;
  size_t lo, hi;
};

__device__ __forceinline__ LLCall ll_begin(const ncore_small_args_t &a, size_t bytes) {
  LLCall c;
  c.epoch = begin_call(a);
  c.parity = (int)(c.epoch & 1);
  c.e = (unsigned)c.epoch;
  size_t lines = (bytes + 7) / 8;
  part_bounds(lines, gridDim.x, blockIdx.x, 1, 0, lines, &c.lo, &c.hi);
  return c;
}

// Every rank's 8 bytes d[0..nranks) reduced in rank order, as T.
template <typename T, int OP>
__device__ __forceinline__ uint2 reduce_line(const ncore_small_args_t &a, const uint2 *d) {
  typedef typename Acc<T>::type A;
  const int V = 8 / sizeof(T);
  A acc[V];
  const T *x = (const T *)&d[0];
#pragma unroll
  for (int k = 0; k < V; k++) acc[k] = up<T>(x[k]);
#pragma unroll
  for (int q = 1; q < NCORE_SMALL_MAX_RANKS; q++) {
    if (q >= a.nranks) break;
    const T *y = (const T *)&d[q];
#pragma unroll
    for (int k = 0; k < V; k++) acc[k] = Apply<OP, A>::run(acc[k], up<T>(y[k]));
  }
  uint2 r;
  T *o = (T *)&r;
#pragma unroll
  for (int k = 0; k < V; k++) o[k] = down<T>(acc[k]);
  return r;
}

// This block's lines of the input (`bytes` long) to every rank's ll slot
// for this rank.
__device__ __forceinline__ void ll_send_to_all(const ncore_small_args_t &a, const LLCall &c,
                                               const char *src, size_t bytes) {
  unsigned long long to = ncore_small_ll(a.nranks, c.parity, a.rank);
  for (size_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x) {
    uint2 v = load8(src, i * 8, bytes);
#pragma unroll
    for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++)
      if (q < a.nranks) ll_store(area_of(a, q) + to + i * 16, v, c.e);
  }
}

template <typename T, int OP>
__device__ void oneshot_ll(const ncore_small_args_t &a) {
  size_t bytes = a.count * sizeof(T);
  LLCall c = ll_begin(a, bytes);
  ll_send_to_all(a, c, (const char *)a.input, bytes);
  char *out = (char *)a.output;
  for (size_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x) {
    uint2 d[NCORE_SMALL_MAX_RANKS];
    ll_gather(a, c.parity, i, c.e, d);
    store8(out + i * 8, reduce_line<T, OP>(a, d), bytes - i * 8);
  }
  end_call(a, c.epoch);
}

// LL allgather: every rank's input (a.count bytes) to every rank's ll slot
// for it, then each rank copies slot q to output block q. Every rank hears
// from every rank in every call, which is what lets a slot be reused two
// calls later (kernels/small_coll.h).
__device__ void allgather_ll(const ncore_small_args_t &a) {
  size_t bytes = a.count;
  LLCall c = ll_begin(a, bytes);
  ll_send_to_all(a, c, (const char *)a.input, bytes);
  char *out = (char *)a.output;
  for (size_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x) {
    uint2 d[NCORE_SMALL_MAX_RANKS];
    ll_gather(a, c.parity, i, c.e, d);
#pragma unroll
    for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++)
      if (q < a.nranks) store8(out + (size_t)q * bytes + i * 8, d[q], bytes - i * 8);
  }
  end_call(a, c.epoch);
}

// LL reduce-scatter: block q of the input (a.count elements) to rank q's ll
// slot for this rank, then each rank reduces its own block from every
// rank's, in rank order (bitwise the same wherever it is computed).
template <typename T, int OP>
__device__ void reduce_scatter_ll(const ncore_small_args_t &a) {
  size_t bytes = a.count * sizeof(T);
  LLCall c = ll_begin(a, bytes);
  const char *src = (const char *)a.input;
  unsigned long long to = ncore_small_ll(a.nranks, c.parity, a.rank);
  for (size_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x) {
    // Every block's line loaded before the first store, so the loads'
    // latencies overlap (a store's asm orders the loads after it).
    uint2 v[NCORE_SMALL_MAX_RANKS];
#pragma unroll
    for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++)
      if (q < a.nranks) v[q] = load8(src + (size_t)q * bytes, i * 8, bytes);
#pragma unroll
    for (int q = 0; q < NCORE_SMALL_MAX_RANKS; q++)
      if (q < a.nranks) ll_store(area_of(a, q) + to + i * 16, v[q], c.e);
  }
  char *out = (char *)a.output;
  for (size_t i = c.lo + threadIdx.x; i < c.hi; i += blockDim.x) {
    uint2 d[NCORE_SMALL_MAX_RANKS];
    ll_gather(a, c.parity, i, c.e, d);
    store8(out + i * 8, reduce_line<T, OP>(a, d), bytes - i * 8);
  }
  end_call(a, c.epoch);
}

// Elements [lo, hi) of src (element i at byte i * sizeof(T) of src) to
// byte i * sizeof(T) of dst: 16 bytes a thread where both line up.
template <typename T>
__device__ __forceinline__ void copy_part(const T *src, char *dst, unsigned lo,
                                          unsigned hi) {
  const int V = 16 / sizeof(T);
  bool aligned = ((((uintptr_t)(src + lo)) | ((uintptr_t)(dst + (size_t)lo * sizeof(T)))) & 15) == 0;
  unsigned vectors_end = aligned ? lo + (hi - lo) / V * V : lo;
  for (unsigned i = lo + threadIdx.x * V; i < vectors_end; i += blockDim.x * V)
    *(uint4 *)(dst + (size_t)i * sizeof(T)) = __ldcg((const uint4 *)(src + i));
  for (unsigned i = vectors_end + threadIdx.x; i < hi; i += blockDim.x)
    *(T *)(dst + (size_t)i * sizeof(T)) = load_cg(src + i);
}

// A two-shot's slices: `units` units (vectors or lines) cut into one
// slice a rank, and this block's part of each, computed once a call (in
// 32 bits: a call is at most NCORE_SMALL_TWOSHOT_MAX bytes).
struct Slices {
  unsigned per_slice, p0, p1;  // [p0, p1): this block's, from a slice's start
  __device__ __forceinline__ Slices(unsigned units, unsigned nranks) {
    per_slice = (units + nranks - 1) / nranks;
    unsigned per_part = (per_slice + gridDim.x - 1) / gridDim.x;
    p0 = min(per_part * blockIdx.x, per_slice);
    p1 = min(p0 + per_part, per_slice);
  }
  // Slice s's first unit, and this block's part of it as [lo, hi) in
  // elements of V a unit, ending at count.
  __device__ __forceinline__ unsigned part(unsigned s, unsigned V, unsigned count,
                                           unsigned *lo, unsigned *hi) const {
    unsigned first = s * per_slice * V;
    *lo = min(first + p0 * V, count);
    *hi = min(first + p1 * V, count);
    return first;
  }
};

template <typename T, int OP>
__device__ void twoshot(const ncore_small_args_t &a) {
  const int V = 16 / sizeof(T);
  unsigned long long epoch = begin_call(a);
  int parity = (int)(epoch & 1);
  unsigned n = (unsigned)a.nranks;
  const unsigned count = (unsigned)a.count;
  Slices slices((count + V - 1) / V, n);  // in vectors of V elements
  unsigned long long slot = ncore_small_twoshot_slot(a.nranks);
  unsigned long long in2 = ncore_small_in2(a.nranks, parity, 0);
  unsigned long long res = ncore_small_res(a.nranks, parity, 0);
  const T *src = (const T *)a.input;
  T *out = (T *)a.output;
  // Round 1: this block's part of each slice s to rank s's in2 slot for
  // this rank.
  for (unsigned s = 0; s < n; s++) {
    unsigned lo, hi, first = slices.part(s, V, count, &lo, &hi);
    char *to = area_of(a, s) + in2 + a.rank * slot - (size_t)first * sizeof(T);
    copy_part<T>(src, to, lo, hi);
  }
  exchange_flags(a, 0, epoch);
  // This rank's slice, reduced from its in2 slots, to every rank's res
  // slot for this rank.
  {
    unsigned lo, hi, first = slices.part(a.rank, V, count, &lo, &hi);
    unsigned long long slots[NCORE_SMALL_MAX_RANKS];
    T *dst[NCORE_SMALL_MAX_RANKS];
    for (int q = 0; q < a.nranks; q++) {
      slots[q] = in2 + q * slot;
      dst[q] = (T *)(area_of(a, q) + res + a.rank * slot);
    }
    reduce_local<T, OP>(a, slots, first, dst, a.nranks, lo, hi);
  }
  exchange_flags(a, 1, epoch);
  // Every slice from this rank's res slots to the output.
  const char *mine = area_of(a, a.rank);
  for (unsigned s = 0; s < n; s++) {
    unsigned lo, hi, first = slices.part(s, V, count, &lo, &hi);
    const char *from = mine + res + s * slot - (size_t)first * sizeof(T);
    copy_part<T>((const T *)from, (char *)out, lo, hi);
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
template <typename T, int OP> struct OneShotLL {
  static __device__ void go(const ncore_small_args_t &a) { oneshot_ll<T, OP>(a); }
};
template <typename T, int OP> struct ReduceScatterLL {
  static __device__ void go(const ncore_small_args_t &a) { reduce_scatter_ll<T, OP>(a); }
};
template <typename T, int OP> struct TwoShot {
  static __device__ void go(const ncore_small_args_t &a) { twoshot<T, OP>(a); }
};

}  // namespace ncore_small

extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allreduce_oneshot(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::OneShot>::go(a);
}

// A kernel of its own: the flags form indexes its arrays by run-time
// values, which would give this one a stack frame too.
extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allreduce_oneshot_ll(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::OneShotLL>::go(a);
}

// count: bytes of each rank's input (the host passes sendcount x size).
extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allgather_ll(ncore_small_args_t a) {
  ncore_small::allgather_ll(a);
}

// count: elements of each rank's output block.
extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_reduce_scatter_ll(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::ReduceScatterLL>::go(a);
}

extern "C" __global__ void __launch_bounds__(NCORE_SMALL_THREADS)
    ncore_allreduce_twoshot(ncore_small_args_t a) {
  ncore_small::Dispatch<ncore_small::TwoShot>::go(a);
}
