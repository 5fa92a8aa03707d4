/* core/nccl — streams, the stream checks of calls with and without a
 * communicator, and stream-ordered copies and sets. */
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

#endif
