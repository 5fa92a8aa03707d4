/* core/nccl — devices, contexts, memory, streams and copies through the CUDA
 * driver API (never the runtime: libncore.so links against neither).
 *
 * ncore follows the runtime's model: a thread's "current device" is the
 * device of its current context, and ncore only ever makes primary contexts
 * current (the ones the runtime, and thus NCCL, torch and cupy, use). */
#include <stdint.h>
#include <stdlib.h>

#include "../error.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

long nccl_env_long(const char *name, long fallback) {
  const char *v = getenv(name);
  if (v == NULL || *v == '\0') return fallback;
  char *end = NULL;
  long x = strtol(v, &end, 0);
  return (end != NULL && *end == '\0') ? x : fallback;
}

ncore_status_t nccl_device_enter(int device, int *resolved, CUcontext *ctx) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  CUcontext cur = NULL;
  status = cu_check(cu_fn.CtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (status != NCORE_OK) return status;
  if (device < 0) {
    if (cur != NULL) {
      CUdevice d;
      status = cu_check(cu_fn.CtxGetDevice(&d), "cuCtxGetDevice");
      if (status != NCORE_OK) return status;
      if (resolved) *resolved = (int)d;
      if (ctx) *ctx = cur;
      return NCORE_OK;
    }
    device = 0; /* the runtime's default device */
  }
  int count = 0;
  status = cu_check(cu_fn.DeviceGetCount(&count), "cuDeviceGetCount");
  if (status != NCORE_OK) return status;
  if (device >= count)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "device: %d is out of range [0, %d)", device, count);
  CUdevice dev;
  status = cu_check(cu_fn.DeviceGet(&dev, device), "cuDeviceGet");
  if (status != NCORE_OK) return status;
  /* Retained once per use and never released: the primary context lives
   * as long as the process, as with the runtime. */
  CUcontext primary = NULL;
  status = cu_check(cu_fn.DevicePrimaryCtxRetain(&primary, dev),
                    "cuDevicePrimaryCtxRetain");
  if (status != NCORE_OK) return status;
  if (primary != cur) {
    status = cu_check(cu_fn.CtxSetCurrent(primary), "cuCtxSetCurrent");
    if (status != NCORE_OK) return status;
  }
  if (resolved) *resolved = device;
  if (ctx) *ctx = primary;
  return NCORE_OK;
}

ncore_status_t nccl_comm_enter(nccl_comm_t *c) {
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  CUcontext cur = NULL;
  status = cu_check(cu_fn.CtxGetCurrent(&cur), "cuCtxGetCurrent");
  if (status == NCORE_OK && cur != c->ctx)
    status = cu_check(cu_fn.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
  return status;
}

ncore_status_t nccl_context_ensure(void) {
  return nccl_device_enter(-1, NULL, NULL);
}

/* ---- backend ops without a communicator ---- */

ncore_status_t nccl_mem_alloc(void **out, size_t size) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  /* ncclMemAlloc gives cuMem-backed memory that windows and NVLS accept. */
  status = nccl_check(nccl_fn.ncclMemAlloc(out, size), "ncclMemAlloc", NULL);
  if (status != NCORE_OK) return status;
  status = nccl_allocation_add(*out);
  if (status != NCORE_OK) {
    nccl_fn.ncclMemFree(*out);
    *out = NULL;
  }
  return status;
}

ncore_status_t nccl_mem_free(void *ptr) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  if (!nccl_allocation_remove(ptr))
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "ptr: not allocated by ncore_mem_alloc (or already "
                      "freed)");
  /* Like cudaFree, wait for the device first: ncclMemFree unmaps at once
   * (cuMemUnmap does not wait), and a send or kernel still reading the
   * memory would then fault ("illegal memory access") in NCCL's stream. */
  status = nccl_context_ensure();
  if (status == NCORE_OK)
    status = cu_check(cu_fn.CtxSynchronize(), "cuCtxSynchronize");
  CUcontext ctx = NULL;
  if (status == NCORE_OK && cu_fn.CtxGetCurrent(&ctx) == CUDA_SUCCESS)
    nccl_retired_release(ctx); /* no stream work is left to read it */
  ncore_status_t freed = nccl_check(nccl_fn.ncclMemFree(ptr), "ncclMemFree",
                                    NULL);
  return status != NCORE_OK ? status : freed;
}

ncore_status_t nccl_device_count(int *out) {
  ncore_status_t status = nccl_load();
  if (status != NCORE_OK) return status;
  return cu_check(cu_fn.DeviceGetCount(out), "cuDeviceGetCount");
}

ncore_status_t nccl_device_set(int device) {
  return nccl_device_enter(device, NULL, NULL);
}

ncore_status_t nccl_device_get(int *out) {
  return nccl_device_enter(-1, out, NULL);
}

ncore_status_t nccl_stream_create(ncore_stream_t *out) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  CUstream s = NULL;
  /* Non-blocking, like cudaStreamNonBlocking: user streams do not
   * serialise with the legacy default stream. */
  status = cu_check(cu_fn.StreamCreate(&s, CU_STREAM_NON_BLOCKING),
                    "cuStreamCreate");
  if (status == NCORE_OK) *out = (ncore_stream_t)s;
  return status;
}

/* The last stream this thread checked, and the context it was checked in.
 * Every communicating call checks its stream, and cuStreamQuery is the
 * most expensive step of a call (a driver round trip under a lock), while
 * programs pass the same stream call after call: a stream that passed in
 * this context passes again without asking. Stays correct: destroying it
 * through ncore forgets it; a stream destroyed elsewhere (torch, CuPy)
 * reaches NCCL, which fails the call with CUDA's invalid-handle error
 * instead of ncore naming the argument first; and a new stream at the same
 * address is a valid stream. */
static _Thread_local CUstream checked_stream;
static _Thread_local CUcontext checked_context;

/* The stream of the last communicating call on this thread, and the
 * context cuStreamGetCtx said it belongs to. Programs pass the same stream
 * call after call, so the hot path asks the driver once per stream, not
 * once per call. Stays correct: a stream destroyed through ncore is
 * forgotten (nccl_stream_destroy); one destroyed elsewhere (torch, CuPy)
 * and a new stream of another device at its address would reach NCCL,
 * which fails the call with CUDA's invalid-handle error instead of ncore
 * naming the argument (the same trade as checked_stream above). */
static _Thread_local CUstream known_stream;
static _Thread_local CUcontext known_context;

ncore_status_t nccl_stream_destroy(ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  if ((CUstream)stream == checked_stream) checked_stream = NULL;
  if ((CUstream)stream == known_stream) known_stream = NULL;
  return cu_check(cu_fn.StreamDestroy((CUstream)stream), "cuStreamDestroy");
}

ncore_status_t nccl_stream_synchronize(ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  return cu_check(cu_fn.StreamSynchronize((CUstream)stream),
                  "cuStreamSynchronize");
}

/* The handles that name a default stream rather than a stream object: NULL,
 * CU_STREAM_LEGACY and CU_STREAM_PER_THREAD. NCCL enqueues on the one of
 * the communicator's device. */
static int is_default_stream(ncore_stream_t stream) {
  return stream == NULL || (CUstream)stream == CU_STREAM_LEGACY ||
         (CUstream)stream == CU_STREAM_PER_THREAD;
}

ncore_status_t nccl_stream_check(ncore_stream_t stream, const char *argument) {
  if (is_default_stream(stream)) return NCORE_OK;
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  CUcontext current = NULL;
  if ((CUstream)stream == checked_stream &&
      cu_fn.CtxGetCurrent(&current) == CUDA_SUCCESS &&
      current == checked_context)
    return NCORE_OK;
  /* cuStreamQuery rejects handles that are not streams of this context
   * (CUDA_ERROR_INVALID_HANDLE / INVALID_CONTEXT); NOT_READY is fine. */
  CUresult r = cu_fn.StreamQuery((CUstream)stream);
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) {
    checked_stream = (CUstream)stream;
    if (cu_fn.CtxGetCurrent(&checked_context) != CUDA_SUCCESS)
      checked_stream = NULL;
    return NCORE_OK;
  }
  const char *name = "?";
  cu_fn.GetErrorName(r, &name);
  return core_error(NCORE_ERR_INVALID_ARGUMENT,
                    "%s: %p is not a CUDA stream of the current device (%s)",
                    argument, stream, name);
}

/* Every send, recv and collective: the stream must be one of the
 * communicator's context (a stream of another device is an error here, not
 * a launch failure inside NCCL's group). No driver call when the stream is
 * the thread's last one. */
ncore_status_t nccl_comm_stream_check(void *comm, ncore_stream_t stream,
                                      const char *argument) {
  nccl_comm_t *c = comm;
  if (is_default_stream(stream)) return NCORE_OK;
  if ((CUstream)stream == known_stream && known_context == c->ctx)
    return NCORE_OK;
  CUcontext ctx = NULL;
  CUresult r = cu_fn.StreamGetCtx((CUstream)stream, &ctx);
  if (r == CUDA_ERROR_INVALID_CONTEXT) {
    /* A thread without a current context: ask again from the
     * communicator's. */
    ncore_status_t status = nccl_comm_enter(c);
    if (status != NCORE_OK) return status;
    r = cu_fn.StreamGetCtx((CUstream)stream, &ctx);
  }
  if (r != CUDA_SUCCESS) {
    const char *name = "?";
    cu_fn.GetErrorName(r, &name);
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %p is not a CUDA stream (%s)", argument, stream,
                      name);
  }
  if (ctx != c->ctx)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %p is a stream of another device than the "
                      "communicator's (device %d)", argument, stream,
                      c->device);
  known_stream = (CUstream)stream;
  known_context = ctx;
  return NCORE_OK;
}

ncore_status_t nccl_memcpy_async(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  if (bytes == 0) return NCORE_OK;
  CUstream s = (CUstream)stream;
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
  CUdeviceptr sp = (CUdeviceptr)(uintptr_t)src;
  switch (kind) {
    case NCORE_MEMCPY_HOST_TO_DEVICE:
      return cu_check(cu_fn.MemcpyHtoDAsync(d, src, bytes, s),
                      "cuMemcpyHtoDAsync");
    case NCORE_MEMCPY_DEVICE_TO_HOST:
      return cu_check(cu_fn.MemcpyDtoHAsync(dst, sp, bytes, s),
                      "cuMemcpyDtoHAsync");
    case NCORE_MEMCPY_DEVICE_TO_DEVICE:
      return cu_check(cu_fn.MemcpyDtoDAsync(d, sp, bytes, s),
                      "cuMemcpyDtoDAsync");
    default:
      /* DEFAULT and HOST_TO_HOST: unified addressing infers the direction
       * (pageable host memory makes the copy synchronous, as in CUDA). */
      return cu_check(cu_fn.MemcpyAsync(d, sp, bytes, s), "cuMemcpyAsync");
  }
}

ncore_status_t nccl_memset_async(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  if (bytes == 0) return NCORE_OK;
  return cu_check(cu_fn.MemsetD8Async((CUdeviceptr)(uintptr_t)dst,
                                      (unsigned char)value, bytes,
                                      (CUstream)stream),
                  "cuMemsetD8Async");
}

int nccl_is_device_pointer(const void *p) {
  /* Host memory (pageable or pinned) and unknown pointers read by a kernel
   * on the device would fault or be slow: those go to the copy engine. */
  CUmemorytype type = 0;
  return cu_fn.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
         type == CU_MEMORYTYPE_DEVICE;
}
