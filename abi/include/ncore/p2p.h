/* ncore — point-to-point: send and recv (ncclSend / ncclRecv).
 *
 * A send must be matched by a recv on the peer with the same byte size;
 * messages between two ranks are matched in call order. Outside a group both
 * calls may block until the peer takes part, so a rank that both sends and
 * receives puts the calls in ncore_group_start / ncore_group_end. */
#ifndef NCORE_P2P_H
#define NCORE_P2P_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* Sends count elements of dtype from buf to rank peer, ordered on stream.
 * buf: borrowed until the operation completes (host: until return, also a
 *   failed one: no rank reads buf after that; NCCL: until the stream passes
 *   it). May be NULL only when count is 0. Host backend: large messages
 *   from a buffer registered with the communicator (ncore_register_buffer)
 *   in ncore_mem_alloc memory, or to a rank of this process, are copied
 *   once, straight into the receive buffer; others twice.
 * peer: in [0, nranks); may be this rank (matched by its own recv in a group).
 * stream: see ncore_stream_t.
 * Returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (buf NULL with count > 0,
 * unknown dtype, peer out of range, bad stream); NCORE_ERR_CLOSED;
 * NCORE_ERR_INVALID_USAGE (host backend: the size differs from the
 * matching recv; NCCL does not compare them, and a mismatch is undefined
 * there; or comm not fit for a communicating call: ncore/comm.h);
 * NCORE_ERR_REMOTE (peer died or aborted, or, host, sent what no ncore
 * rank sends: a corrupt message or one-copy offer, which fails the
 * communicator); NCORE_ERR_TIMEOUT;
 * NCORE_ERR_SYSTEM (out of memory queueing the call in a group);
 * NCORE_ERR_UNHANDLED_CUDA. */
NCORE_API ncore_status_t ncore_send(ncore_comm_t comm, const void *buf,
                                    size_t count, ncore_dtype_t dtype, int peer,
                                    ncore_stream_t stream);

/* Receives count elements of dtype from rank peer into buf, ordered on stream.
 * buf: borrowed as for ncore_send; written when the operation completes.
 * Returns as ncore_send. */
NCORE_API ncore_status_t ncore_recv(ncore_comm_t comm, void *buf, size_t count,
                                    ncore_dtype_t dtype, int peer,
                                    ncore_stream_t stream);

NCORE_END_DECLS

#endif /* NCORE_P2P_H */
