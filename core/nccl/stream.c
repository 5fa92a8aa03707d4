/* core/nccl — streams and copies (stream.h). */
#include "stream.h"

#include <stdint.h>

#include "../error.h"
#include "device.h"
#include "../thread_state.h"
#include "../hot_path.h"

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
 * A driver question is the most expensive step of a call (a round trip
 * under a lock), while programs pass the same stream call after call: a
 * stream that passed in this context passes again without asking. Stays
 * correct: destroying it through ncore forgets it; a stream destroyed
 * elsewhere (torch, CuPy) reaches NCCL, which fails the call with CUDA's
 * invalid-handle error instead of ncore naming the argument first; and a
 * new stream at the same address is a valid stream. */
static _Thread_local CUstream checked_stream;
static _Thread_local CUcontext checked_context;

/* The stream of the last communicating call on this thread, and the
 * context cuStreamGetCtx said it belongs to (core_thread's
 * nccl_known_stream and nccl_known_context, thread_state.h). Programs pass the same stream
 * call after call, so the hot path asks the driver once per stream, not
 * once per call. Stays correct: a stream destroyed through ncore is
 * forgotten (nccl_stream_destroy); one destroyed elsewhere (torch, CuPy)
 * and a new stream of another device at its address would reach NCCL,
 * which fails the call with CUDA's invalid-handle error instead of ncore
 * naming the argument (the same trade as checked_stream above). */

ncore_status_t nccl_stream_destroy(ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  if ((CUstream)stream == checked_stream) checked_stream = NULL;
  if ((CUstream)stream == core_thread.nccl_known_stream)
    core_thread.nccl_known_stream = NULL;
  return cu_check(cu_fn.StreamDestroy((CUstream)stream), "cuStreamDestroy");
}

ncore_status_t nccl_stream_synchronize(ncore_stream_t stream) {
  ncore_status_t status = nccl_context_ensure();
  if (status == NCORE_OK) status = nccl_stream_check_waitable(stream);
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

int nccl_stream_capturing(ncore_stream_t stream) {
  CUstreamCaptureStatus state = CU_STREAM_CAPTURE_STATUS_NONE;
  CUresult r = cu_fn.StreamIsCapturing((CUstream)stream, &state);
  /* The legacy default stream while a blocking stream is being captured:
   * CUDA answers IMPLICIT, and any use of it now would end that capture. */
  return r == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT ||
         (r == CUDA_SUCCESS && state != CU_STREAM_CAPTURE_STATUS_NONE);
}

ncore_status_t nccl_refuse_capture(ncore_stream_t stream, const char *why) {
  if (!nccl_stream_capturing(stream)) return NCORE_OK;
  if (is_default_stream(stream))
    return core_error(NCORE_ERR_INVALID_USAGE,
                      "stream: the default stream is being captured into a "
                      "CUDA graph, or another stream is (which a use of the "
                      "default stream would end), and %s", why);
  return core_error(NCORE_ERR_INVALID_USAGE,
                    "stream: is being captured into a CUDA graph, and %s", why);
}

/* Why a wait for a stream is refused while it is being captured. */
static const char *const synchronize_in_capture =
    "its captured work runs only when the graph is launched: synchronize the "
    "stream the graph is launched on, after the capture ended (a wait on a "
    "capturing stream would end the capture with an error)";

ncore_status_t nccl_stream_check_waitable(ncore_stream_t stream) {
  return nccl_refuse_capture(stream, synchronize_in_capture);
}

ncore_status_t nccl_stream_check(ncore_stream_t stream, const char *argument) {
  if (is_default_stream(stream)) return NCORE_OK;
  ncore_status_t status = nccl_context_ensure();
  if (status != NCORE_OK) return status;
  CUcontext current = NULL;
  if (cu_fn.CtxGetCurrent(&current) != CUDA_SUCCESS) current = NULL;
  if ((CUstream)stream == checked_stream && current == checked_context)
    return NCORE_OK;
  /* cuStreamGetCtx rejects handles that are not streams; asking it, unlike
   * cuStreamQuery, leaves a stream being captured into a CUDA graph
   * capturing (a query ends the capture with an error). */
  CUcontext owner = NULL;
  CUresult r = cu_fn.StreamGetCtx((CUstream)stream, &owner);
  if (r == CUDA_SUCCESS && owner == current) {
    checked_stream = (CUstream)stream;
    checked_context = current;
    return NCORE_OK;
  }
  if (r == CUDA_SUCCESS)
    return core_error(NCORE_ERR_INVALID_ARGUMENT,
                      "%s: %p is a stream of another device than the current "
                      "one", argument, stream);
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
CORE_HOT ncore_status_t nccl_comm_stream_check(core_backend_comm_t *comm,
                                      ncore_stream_t stream,
                                      const char *argument) {
  nccl_comm_t *c = comm;
  if (is_default_stream(stream)) return NCORE_OK;
  if ((CUstream)stream == core_thread.nccl_known_stream &&
      core_thread.nccl_known_context == c->ctx)
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
  core_thread.nccl_known_stream = (CUstream)stream;
  core_thread.nccl_known_context = ctx;
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
