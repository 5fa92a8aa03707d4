/* core/nccl — CUDA devices and contexts through the driver API (never the
 * runtime: libncore.so links against neither). ncore follows the
 * runtime's model: a thread's "current device" is the device of its
 * current context, and ncore only ever makes primary contexts current (the
 * ones the runtime, and thus NCCL, torch and cupy, use). */
#ifndef NCORE_CORE_NCCL_DEVICE_H
#define NCORE_CORE_NCCL_DEVICE_H

#include "comm.h"

/* Loads the libraries (nccl_load) and makes device's primary context current
 * on the calling thread; device -1 keeps the current one (0 if none). */
ncore_status_t nccl_device_enter(int device, int *resolved, CUcontext *ctx);
/* nccl_comm_check_live, then makes the context of c current on the calling
 * thread. */
ncore_status_t nccl_comm_enter(nccl_comm_t *c);
/* Ensures some context is current (for calls without a communicator). */
ncore_status_t nccl_context_ensure(void);
/* 1 when a kernel on the device may read p (device memory); 0 for host
 * memory and pointers the driver does not know. */
int nccl_is_device_pointer(const void *p);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_device_count(int *out);
ncore_status_t nccl_device_set(int device);
ncore_status_t nccl_device_get(int *out);

#endif
