// ncore — CUDA kernels launched by the NCCL backend (core/nccl/).
// Compiled by nvcc into one fatbin (sm_90 SASS + compute_90 PTX; BUILD's
// kernels_fatbin), embedded in libncore.so and loaded through the driver
// API, so libncore.so never links against the CUDA runtime. Kernels are
// extern "C" so the driver finds them by name (tools/gen-kernel-names.py
// lists them from their definitions in core/nccl/kernel_names_gen.h). Only CUDA's and NCCL's headers are included: no header of ncore's.
#include <cstddef>
#include <cstdint>
#include <nccl.h>
#include <nccl_device.h>

// The kernels below that take NCCL device types (window pointer queries)
// run only on NCCL 2.28, whose layout this file is built against
// (core/nccl/window_pointer.c uses NCCL's host getters from 2.29.2 on). Every
// version's struct layouts are checked in tests/nccl-layouts/check.cu.

// Programmatic dependent launch (core/nccl/kernels.c launches the three
// kernels below with it): a kernel may start while the grid before it on
// its stream still runs, so each waits for that grid (its completion and
// its memory) before touching memory it may have written, and before it
// ends, so work after it never overtakes work before it. Each lets its
// successor launch at once: the successor waits for it the same way. Both
// instructions do nothing in a launch without PDL.
__device__ __forceinline__ void wait_for_previous_grid() {
  asm volatile("griddepcontrol.wait;" ::: "memory");
}
__device__ __forceinline__ void let_next_grid_launch() {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}

// Adds `value` to a 64-bit signal slot (in a peer's memory, through its LSA
// pointer) with system-scope release semantics: every store this stream made
// before the kernel (earlier kernels, copies) is visible to a reader that
// acquires the slot and sees the new value.
extern "C" __global__ void ncore_signal_add(unsigned long long *slot,
                                            unsigned long long value) {
  wait_for_previous_grid();
  let_next_grid_launch();
  __threadfence_system();
  asm volatile("red.release.sys.global.add.u64 [%0], %1;"
               :: "l"(slot), "l"(value) : "memory");
}

// put_signal's copy by the SMs: the grid copies `bytes` from src to dst (the
// peer's window through its LSA pointer), 16 bytes per thread per step where
// both ends and the size allow. With one block (small puts) the kernel also
// signals: after __syncthreads, thread 0 publishes the signal with a
// system-scope release: add `value` (store == 0) or store `value`, the
// sender's running count (store != 0). No fence before it: the barrier
// orders every thread's copy before thread 0's release, and a release is
// cumulative in PTX's memory model (what precedes it in causality order,
// the other threads' stores included, is visible to whoever acquires the
// slot), so a system fence there only made the hop longer (measured by
// bench/gpu/onesided_bench's profile). With several blocks
// (slot == nullptr) a signal kernel follows on the stream: kernel boundaries
// order the copy before it.
extern "C" __global__ void ncore_put_signal(unsigned char *dst,
                                            const unsigned char *src,
                                            unsigned long long bytes,
                                            unsigned long long *slot,
                                            unsigned long long value,
                                            int store) {
  wait_for_previous_grid();
  let_next_grid_launch();
  unsigned long long first = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  bool aligned = ((reinterpret_cast<uintptr_t>(dst) |
                   reinterpret_cast<uintptr_t>(src)) & 15) == 0;
  unsigned long long vectors = aligned ? bytes / 16 : 0;
  const uint4 *s = reinterpret_cast<const uint4 *>(src);
  uint4 *d = reinterpret_cast<uint4 *>(dst);
  for (unsigned long long i = first; i < vectors; i += stride) d[i] = s[i];
  for (unsigned long long i = vectors * 16 + first; i < bytes; i += stride)
    dst[i] = src[i];
  if (slot == nullptr) return;
  __syncthreads();
  if (threadIdx.x == 0) {
    if (store)
      asm volatile("st.release.sys.global.u64 [%0], %1;"
                   :: "l"(slot), "l"(value) : "memory");
    else
      asm volatile("red.release.sys.global.add.u64 [%0], %1;"
                   :: "l"(slot), "l"(value) : "memory");
  }
}

// Waits until the local slot reaches the count it is to wait for
// (wrap-safe, as CU_STREAM_WAIT_VALUE_GEQ), reading with system-scope
// acquire so the data the signaller published before its release is
// visible to later work on this stream. The count:
// - consumed != nullptr (NCORE_NCCL_WAIT=spin, the default): the kernel
//   takes the next `count` signals of this peer from the counter of those
//   earlier waits consumed, with one atomic add on the GPU, and waits for
//   the total. Nothing of the host's is in the launch, so the same launch
//   replayed by a CUDA graph waits for the next signals each time, and
//   eager waits and replays share one count. The counter is taken before
//   the next grid may launch (PDL), so waits on one stream take their
//   signals in stream order;
// - consumed == nullptr (NCORE_NCCL_WAIT=hybrid): `count` is the total,
//   which the host computed.
// It reads every ~32 ns for the first poll_ns of the GPU's clock; then
// - give_up == 0 (spin): on, sleeping twice as long between reads each
//   time up to 2 us, so a long wait keeps one sleeping thread, not a busy
//   one: short waits get the spin's latency;
// - give_up != 0 (hybrid): it returns, and a cuStreamWaitValue64 queued
//   behind the kernel takes over.
// Before the grid before it ends (PDL) it touches only the slot and its
// own counter, which no kernel but a wait of this rank touches: the wait
// for that grid comes last. The acquire is all later work needs: work
// after the kernel on this stream starts after it ends, so no fence
// follows it.
extern "C" __global__ void ncore_wait_geq(const unsigned long long *slot,
                                          unsigned long long *consumed,
                                          unsigned long long count,
                                          unsigned long long poll_ns,
                                          int give_up) {
  unsigned long long expected =
      consumed != nullptr ? atomicAdd(consumed, count) + count : count;
  let_next_grid_launch();
  unsigned long long v, start, now;
  unsigned sleep_ns = 32;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (;;) {
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];"
                 : "=l"(v) : "l"(slot) : "memory");
    if ((long long)(v - expected) >= 0) break;
    if (sleep_ns == 32) {
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (now - start > poll_ns) {
        if (give_up) break;
        sleep_ns = 64;
      }
    } else if (sleep_ns < 2048) {
      sleep_ns *= 2;
    }
    __nanosleep(sleep_ns);
  }
  wait_for_previous_grid();
}

// Window pointer queries (NCCL 2.28 has only the device-side getters). Each
// stores one address into *out (device memory) for the host to read.
extern "C" __global__ void ncore_window_lsa_pointer(ncclWindow_t window,
                                                    size_t offset, int lsa_rank,
                                                    void **out) {
  *out = ncclGetLsaPointer(window, offset, lsa_rank);
}

extern "C" __global__ void ncore_window_peer_pointer(ncclWindow_t window,
                                                     size_t offset, int peer,
                                                     void **out) {
  *out = ncclGetPeerPointer(window, offset, peer);
}

// dev_comm: the device communicator by value (made with lsaMultimem). NULL
// when NCCL gave it no multicast object (NVLS off or unsupported).
extern "C" __global__ void ncore_window_multimem_pointer(ncclWindow_t window,
                                                         size_t offset,
                                                         ncclDevComm dev_comm,
                                                         void **out) {
  *out = dev_comm.lsaMultimem.mcBasePtr == nullptr
             ? nullptr
             : ncclGetLsaMultimemPointer(window, offset, dev_comm);
}
