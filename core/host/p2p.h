/* core/host — point-to-point messages through the SPSC byte ring of each
 * ordered pair, or the one-copy path (p2p.c). */
#ifndef NCORE_CORE_HOST_P2P_H
#define NCORE_CORE_HOST_P2P_H

#include <stddef.h>
#include "comm.h"
#include "op.h"

void host_p2p_init_send(host_op_t *op, host_comm_t *comm, const void *buf,
                        size_t bytes, int peer);
void host_p2p_init_recv(host_op_t *op, host_comm_t *comm, void *buf,
                        size_t bytes, int peer);

/* ---- backend operations (core/backend.h) ---- */
ncore_status_t host_send(core_backend_comm_t *comm, const void *buf,
                         size_t count, ncore_dtype_t dtype, int peer,
                         ncore_stream_t stream);
ncore_status_t host_recv(core_backend_comm_t *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream);

#endif
