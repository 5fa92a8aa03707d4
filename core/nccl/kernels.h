/* core/nccl — the CUDA kernels of kernels/ (every .cu there), embedded in
 * libncore.so as a fatbin (BUILD: kernels_fatbin), loaded per context and
 * launched by name. */
#ifndef NCORE_CORE_NCCL_KERNELS_H
#define NCORE_CORE_NCCL_KERNELS_H

#include "nccl_lib.h"

typedef enum nccl_kernel {
  NCCL_KERNEL_SIGNAL_ADD,
  NCCL_KERNEL_PUT_SIGNAL,
  NCCL_KERNEL_WAIT_GEQ,
  NCCL_KERNEL_LSA_POINTER,
  NCCL_KERNEL_PEER_POINTER,
  NCCL_KERNEL_MULTIMEM_POINTER,
  NCCL_KERNEL_ALLREDUCE_ONESHOT, /* kernels/small_coll.cu */
  NCCL_KERNEL_ALLREDUCE_TWOSHOT,
  NCCL_KERNEL_ALLREDUCE_ONESHOT_LL,
  NCCL_KERNEL_ALLGATHER_LL,
  NCCL_KERNEL_REDUCE_SCATTER_LL,
  NCCL_KERNEL_COUNT
} nccl_kernel_t;

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
