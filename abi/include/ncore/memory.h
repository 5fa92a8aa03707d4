/* ncore — memory, streams and devices: what a binding needs when its
 * language has no CUDA library of its own. A Go or Rust user fills, reads and
 * synchronises buffers through these alone, on either backend.
 *
 * Each call names its backend (AUTO resolves as for communicators, see
 * ncore_backend_resolve). Host backend: "device" memory is host memory and
 * stream work completes before the call returns. NCCL backend: memory is
 * device memory of the current device, streams are CUDA streams. */
#ifndef NCORE_MEMORY_H
#define NCORE_MEMORY_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Direction of a copy. */
typedef enum ncore_memcpy_kind {
  /* Inferred from the pointers (unified addressing). */
  NCORE_MEMCPY_DEFAULT = 0,
  NCORE_MEMCPY_HOST_TO_DEVICE = 1,
  NCORE_MEMCPY_DEVICE_TO_HOST = 2,
  NCORE_MEMCPY_DEVICE_TO_DEVICE = 3,
  NCORE_MEMCPY_HOST_TO_HOST = 4
} ncore_memcpy_kind_t;

/* Writes the backend AUTO (or NCORE_BACKEND) picks in this process:
 * NCORE_BACKEND_HOST or NCORE_BACKEND_NCCL. A concrete request is checked
 * for availability and echoed.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, unknown backend,
 * NCORE_BACKEND names no backend); NCORE_ERR_UNAVAILABLE (NCCL requested
 * but missing; the message names what). */
NCORE_API ncore_status_t ncore_backend_resolve(ncore_backend_t requested,
                                               ncore_backend_t *out);

/* Allocates size bytes the way the backend wants communication memory:
 * NCCL: ncclMemAlloc on the current device (windows require it);
 * host: shared memory (a memfd of this process) that other ranks can map:
 * the pages of a window over it (read-write, so windows have real peer
 * pointers) or of a buffer registered with ncore_register_buffer
 * (read-only), while the window or registration lasts; nothing else of it.
 * (Linux lets any process of the same user open the memfd: the trust
 * between ranks of one job is in docs/reliability.md.) Contents are
 * uninitialised.
 * out: receives the pointer; free it with ncore_mem_free on the same backend.
 * size: > 0, and at most PTRDIFF_MAX (no object is larger).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, size 0 or above
 * PTRDIFF_MAX, unknown backend); NCORE_ERR_UNAVAILABLE; NCORE_ERR_SYSTEM
 * (out of memory); NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_mem_alloc(void **out, size_t size,
                                         ncore_backend_t backend);

/* Frees memory from ncore_mem_alloc (ncclMemFree). NULL is a no-op. On the
 * host its pages are released at once, also in every process that maps
 * them (such a mapping then reads zeros).
 * Like cudaFree, on NCCL it first waits for the device's outstanding work
 * (an operation still reading or writing the memory would otherwise fault).
 * An operation that waits for a peer which died or aborted never ends on its
 * own (its communicator's calls answer REMOTE or TIMEOUT, its kernel stays):
 * abort that communicator first (ncore_comm_abort stops its work), or this
 * call waits with it.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (unknown backend; ptr was not
 * returned by ncore_mem_alloc of this backend, was already freed, or is a
 * symmetric allocation's part, which only ncore_symmetric_free releases);
 * NCORE_ERR_UNAVAILABLE (the backend is missing);
 * NCORE_ERR_UNHANDLED_CUDA (NCCL: the device reported an error while
 * waiting; the memory is freed all the same). */
NCORE_API ncore_status_t ncore_mem_free(void *ptr, ncore_backend_t backend);

/* Number of devices: CUDA devices (NCCL), 1 (host).
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT; NCORE_ERR_UNAVAILABLE. */
NCORE_API ncore_status_t ncore_device_count(ncore_backend_t backend, int *out);

/* Makes device the calling thread's current device (cudaSetDevice); host:
 * only -1 or 0 are accepted and nothing changes.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (device out of range);
 * NCORE_ERR_UNAVAILABLE; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_device_set(ncore_backend_t backend, int device);

/* The calling thread's current device; -1 on the host backend.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL);
 * NCORE_ERR_UNAVAILABLE. */
NCORE_API ncore_status_t ncore_device_get(ncore_backend_t backend, int *out);

/* Creates a stream (NCCL: cudaStreamCreateWithFlags non-blocking; host: a
 * token that orders nothing extra, since host work completes on return).
 * out: receives the stream; destroy it with ncore_stream_destroy.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT; NCORE_ERR_UNAVAILABLE;
 * NCORE_ERR_SYSTEM; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_stream_create(ncore_stream_t *out,
                                             ncore_backend_t backend);

/* Destroys a stream made by ncore_stream_create. NULL is a no-op.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (unknown backend; host: not a
 * live stream of this backend); NCORE_ERR_UNAVAILABLE;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_stream_destroy(ncore_stream_t stream,
                                              ncore_backend_t backend);

/* Waits until all work enqueued on stream has completed (NULL: the default
 * stream). Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (unknown backend;
 * host: not a live stream); NCORE_ERR_INVALID_USAGE (NCCL: stream is being
 * captured into a CUDA graph, whose work runs when it is launched; refused
 * with the capture left intact); NCORE_ERR_UNAVAILABLE;
 * NCORE_ERR_UNHANDLED_CUDA (including an earlier asynchronous failure on
 * the stream). */
NCORE_API ncore_status_t ncore_stream_synchronize(ncore_stream_t stream,
                                                  ncore_backend_t backend);

/* Copies bytes from src to dst, ordered on stream. Asynchronous on NCCL:
 * synchronise the stream before reading dst on the host.
 * dst, src: not NULL unless bytes is 0; must not overlap.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL pointer with bytes > 0,
 * a range running past the end of the address space, unknown kind or
 * backend, bad stream); NCORE_ERR_UNAVAILABLE; NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_memcpy(void *dst, const void *src, size_t bytes,
                                      ncore_memcpy_kind_t kind,
                                      ncore_stream_t stream,
                                      ncore_backend_t backend);

/* Sets bytes bytes at dst to (unsigned char)value, ordered on stream.
 * Returns as ncore_memcpy. */
NCORE_API ncore_status_t ncore_memset(void *dst, int value, size_t bytes,
                                      ncore_stream_t stream,
                                      ncore_backend_t backend);

NCORE_END_DECLS

#endif /* NCORE_MEMORY_H */
