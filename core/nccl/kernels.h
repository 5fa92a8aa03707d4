/* core/nccl — the CUDA kernels of kernels/ (every .cu there), embedded in
 * libncore.so as a fatbin (BUILD: kernels_fatbin), loaded per context and
 * launched by name. */
#ifndef NCORE_CORE_NCCL_KERNELS_H
#define NCORE_CORE_NCCL_KERNELS_H

#include "kernel_names_gen.h"
#include "nccl_lib.h"

/* Every kernel of kernels/, NCCL_KERNEL_<its name without ncore_, in
 * capitals> (kernel_names_gen.h, written from the kernels' definitions). */
#define NCCL_KERNEL_ENUM(ENUM, name) NCCL_KERNEL_##ENUM,
typedef enum nccl_kernel {
  NCCL_KERNELS(NCCL_KERNEL_ENUM)
  NCCL_KERNEL_COUNT /* how many */
} nccl_kernel_t;
#undef NCCL_KERNEL_ENUM

/* Loads the kernels into the current context now, if not yet: loading
 * waits for the device's running kernels, so communicators do it at setup,
 * before any of their collective work can be in flight (a kernel stuck on a
 * dead peer would otherwise block it, and abort behind it). */
ncore_status_t nccl_kernels_load(void);
/* Launches kernel with grid x block threads on stream; params as
 * cuLaunchKernel's kernelParams. Loads the module of the current context. */
ncore_status_t nccl_kernel_launch(nccl_kernel_t kernel, unsigned grid,
                                  unsigned block, CUstream stream,
                                  void **params);

#endif
