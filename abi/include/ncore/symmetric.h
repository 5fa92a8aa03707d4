/* ncore — symmetric memory in the NVSHMEM style (nvshmem.core interop:
 * tensor / array / free_tensor / get_peer_tensor / put / get).
 *
 * A symmetric allocation is made collectively: every rank ("PE", = rank of
 * the communicator) allocates the same size, and each can address the others'
 * parts: directly through peer pointers where load/store reachable (always on
 * the host backend, NVLink peers on NCCL), and always through put / get.
 * NCCL backend: ncclMemAlloc + a window; host backend: shared memory.
 * It is a communicator resource (see resources.h). */
#ifndef NCORE_SYMMETRIC_H
#define NCORE_SYMMETRIC_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Allocates size bytes on every rank. Collective over comm; all ranks pass the
 * same size. Contents are zeroed.
 * out: receives the handle; free it with ncore_symmetric_free.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, size 0 or above
 * PTRDIFF_MAX, sizes that differ between ranks); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE (comm not fit for a communicating call:
 * ncore/comm.h); NCORE_ERR_SYSTEM; NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT;
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_symmetric_alloc(ncore_symmetric_t *out,
                                               ncore_comm_t comm, size_t size);

/* Size of each rank's part in bytes.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (out NULL, wrong handle type);
 * NCORE_ERR_CLOSED. */
NCORE_API ncore_status_t ncore_symmetric_size(ncore_symmetric_t sym,
                                              size_t *out);

/* This rank's part (a device pointer on NCCL).
 * Returns as ncore_symmetric_size. */
NCORE_API ncore_status_t ncore_symmetric_local_pointer(ncore_symmetric_t sym,
                                                       void **out);

/* Rank pe's part as addressable by this rank (nvshmem_ptr), or NULL in *out
 * when pe is not load/store reachable.
 * Returns as ncore_symmetric_size, and NCORE_ERR_INVALID_ARGUMENT for pe out
 * of range. */
NCORE_API ncore_status_t ncore_symmetric_peer_pointer(ncore_symmetric_t sym,
                                                      int pe, void **out);

/* Copies bytes from local memory src into rank pe's part at dst_offset,
 * ordered on stream (nvshmem put). Complete for the target after a
 * synchronisation such as a barrier collective or a signal.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (src NULL with bytes > 0, pe out
 * of range, dst_offset + bytes beyond the allocation, bad stream);
 * NCORE_ERR_CLOSED; NCORE_ERR_INVALID_USAGE, NCORE_ERR_TIMEOUT,
 * NCORE_ERR_REMOTE (the communicator is not fit for a communicating call:
 * ncore/comm.h); NCORE_ERR_NOT_SUPPORTED (pe not reachable);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_symmetric_put(ncore_symmetric_t dst,
                                             size_t dst_offset, const void *src,
                                             size_t bytes, int pe,
                                             ncore_stream_t stream);

/* Copies bytes from rank pe's part at src_offset into local memory dst,
 * ordered on stream (nvshmem get). Returns as ncore_symmetric_put. */
NCORE_API ncore_status_t ncore_symmetric_get(void *dst, ncore_symmetric_t src,
                                             size_t src_offset, size_t bytes,
                                             int pe, ncore_stream_t stream);

/* Frees this rank's part. Local: the memory lives on until every rank freed
 * it (or its communicator was destroyed). Idempotent.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL or not a symmetric
 * handle). */
NCORE_API ncore_status_t ncore_symmetric_free(ncore_symmetric_t sym);

/* 1 if the allocation is open, else 0. Cannot fail. */
NCORE_API int ncore_symmetric_is_valid(ncore_symmetric_t sym);

NCORE_END_DECLS

#endif /* NCORE_SYMMETRIC_H */
