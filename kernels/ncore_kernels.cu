// ncore — CUDA kernels launched by the NCCL backend (core/nccl/).
// Compiled by nvcc into one fatbin (sm_90 SASS + compute_90 PTX), embedded in
// libncore.so and loaded through the driver API, so libncore.so never links
// against the CUDA runtime. Kernels are extern "C" so the driver finds them by
// name. The NCCL backend helper owns this file.
#include <cstdint>

// Adds `value` to a 64-bit signal slot with system-scope release semantics, so
// that every store this stream made before the kernel is visible to a reader
// that acquires the slot.
extern "C" __global__ void ncore_signal_add(unsigned long long *slot,
                                            unsigned long long value) {
  __threadfence_system();
  atomicAdd(slot, value);
}
