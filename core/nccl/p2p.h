/* core/nccl — send and recv: ncclSend / ncclRecv. */
#ifndef NCORE_CORE_NCCL_P2P_H
#define NCORE_CORE_NCCL_P2P_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_send(void *comm, const void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);
ncore_status_t nccl_recv(void *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);

#endif
