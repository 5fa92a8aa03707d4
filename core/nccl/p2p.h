/* core/nccl — send and recv: ncclSend / ncclRecv. */
#ifndef NCORE_CORE_NCCL_P2P_H
#define NCORE_CORE_NCCL_P2P_H

#include "../backend.h"

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t nccl_send(core_backend_comm_t *comm, const void *buf,
                         size_t count, ncore_dtype_t dtype, int peer,
                         ncore_stream_t stream);
ncore_status_t nccl_recv(core_backend_comm_t *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);

#endif
