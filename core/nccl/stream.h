/* core/nccl — streams, the stream checks of calls with and without a
 * communicator, whether a stream is being captured into a CUDA graph, and
 * stream-ordered copies and sets. */
#ifndef NCORE_CORE_NCCL_STREAM_H
#define NCORE_CORE_NCCL_STREAM_H

#include "comm.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_stream_create(ncore_stream_t *out);
ncore_status_t nccl_stream_destroy(ncore_stream_t stream);
ncore_status_t nccl_stream_synchronize(ncore_stream_t stream);
ncore_status_t nccl_stream_check(ncore_stream_t stream, const char *argument);
ncore_status_t nccl_comm_stream_check(core_backend_comm_t *comm,
                                      ncore_stream_t stream,
                                      const char *argument);
ncore_status_t nccl_memcpy_async(void *dst, const void *src, size_t bytes,
                                 ncore_memcpy_kind_t kind,
                                 ncore_stream_t stream);
ncore_status_t nccl_memset_async(void *dst, int value, size_t bytes,
                                 ncore_stream_t stream);

/* ---- CUDA graphs (README.md, "CUDA graphs") ----
 * 1 when stream is being captured into a CUDA graph (its capture active,
 * or invalidated and not yet ended), or is a default stream CUDA forbids
 * now because a blocking stream is being captured; else 0, also for a
 * handle the driver does not know (the call that uses it says so).
 * Asking leaves a capture as it was, unlike cuStreamQuery, and records no
 * error. For the default streams the calling thread's current context
 * must be the stream's. One driver call. */
int nccl_stream_capturing(ncore_stream_t stream);
/* NCORE_OK when stream is not being captured; else NCORE_ERR_INVALID_USAGE
 * with a message naming the stream and saying why, from `why` ("and ..."
 * follows the stream: what the call would do wrong in a graph and what to
 * do instead). For calls whose work cannot be replayed by a graph. */
ncore_status_t nccl_refuse_capture(ncore_stream_t stream, const char *why);
/* NCORE_ERR_INVALID_USAGE when stream is being captured: a wait for it
 * (synchronize) would end the capture with an error. */
ncore_status_t nccl_stream_check_waitable(ncore_stream_t stream);

#endif
