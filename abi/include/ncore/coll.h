/* ncore — collectives (ncclAllReduce, ncclBroadcast, ncclReduce,
 * ncclAllGather, ncclReduceScatter, ncclAlltoAll, ncclGather, ncclScatter).
 *
 * Every rank calls the same collectives in the same order with matching
 * counts, dtype, op and root. Buffers are borrowed until the operation
 * completes (host backend: until return; NCCL: until the stream passes it).
 * In-place use follows NCCL: allreduce/broadcast/reduce with sendbuf ==
 * recvbuf; allgather with sendbuf == recvbuf + rank * sendcount; reduce_scatter
 * with recvbuf == sendbuf + rank * recvcount; gather with sendbuf == recvbuf +
 * root * count; scatter with recvbuf == sendbuf + root * count.
 * A buffer may be NULL only when the element count it holds is 0, and the
 * root-only buffers (gather's recvbuf, scatter's sendbuf) may be NULL on
 * non-root ranks.
 *
 * op: NCORE_SUM, _PROD, _MAX, _MIN, _AVG, or a custom operator's value
 * (ncore_custom_redop_value) of this communicator and dtype. Arithmetic on
 * float16, bfloat16 and the float8 types is done in float and rounded to
 * nearest-even on store.
 *
 * Each returns NCORE_OK; NCORE_ERR_INVALID_ARGUMENT (NULL buffer with a
 * non-zero count, unknown dtype or op, root out of range, bad stream, custom
 * op made for another dtype or communicator); NCORE_ERR_CLOSED (comm closed,
 * or a custom op that was closed); NCORE_ERR_INVALID_USAGE (ranks disagree on
 * the collective, count, dtype or root; or comm not fit for a communicating
 * call: ncore/comm.h); NCORE_ERR_REMOTE; NCORE_ERR_TIMEOUT; NCORE_ERR_SYSTEM
 * (out of memory queueing the call in a group); NCORE_ERR_UNHANDLED_CUDA. */
#ifndef NCORE_COLL_H
#define NCORE_COLL_H

#include "errors.h"
#include "types.h"

NCORE_BEGIN_DECLS

/* recvbuf[i] = op over ranks of sendbuf[i], on every rank; count elements. */
NCORE_API ncore_status_t ncore_allreduce(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, ncore_redop_t op,
                                         ncore_stream_t stream);

/* Copies root's sendbuf (count elements) into every rank's recvbuf.
 * sendbuf is read on root only. */
NCORE_API ncore_status_t ncore_broadcast(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t count,
                                         ncore_dtype_t dtype, int root,
                                         ncore_stream_t stream);

/* Like allreduce, but only root's recvbuf receives the result; recvbuf may be
 * NULL on other ranks. */
NCORE_API ncore_status_t ncore_reduce(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, ncore_redop_t op,
                                      int root, ncore_stream_t stream);

/* Every rank's sendbuf (sendcount elements) lands at recvbuf + r * sendcount
 * on every rank; recvbuf holds nranks * sendcount elements. */
NCORE_API ncore_status_t ncore_allgather(ncore_comm_t comm, const void *sendbuf,
                                         void *recvbuf, size_t sendcount,
                                         ncore_dtype_t dtype,
                                         ncore_stream_t stream);

/* Reduces nranks * recvcount elements of sendbuf over ranks; rank r receives
 * block r (recvcount elements) in recvbuf. */
NCORE_API ncore_status_t ncore_reduce_scatter(ncore_comm_t comm,
                                              const void *sendbuf,
                                              void *recvbuf, size_t recvcount,
                                              ncore_dtype_t dtype,
                                              ncore_redop_t op,
                                              ncore_stream_t stream);

/* Block j (count elements) of sendbuf goes to rank j, landing at
 * recvbuf + i * count there, where i is the sender. Not in place. */
NCORE_API ncore_status_t ncore_alltoall(ncore_comm_t comm, const void *sendbuf,
                                        void *recvbuf, size_t count,
                                        ncore_dtype_t dtype,
                                        ncore_stream_t stream);

/* Every rank's sendbuf (count elements) lands at recvbuf + r * count on root. */
NCORE_API ncore_status_t ncore_gather(ncore_comm_t comm, const void *sendbuf,
                                      void *recvbuf, size_t count,
                                      ncore_dtype_t dtype, int root,
                                      ncore_stream_t stream);

/* Block r (count elements) of root's sendbuf lands in rank r's recvbuf. */
NCORE_API ncore_status_t ncore_scatter(ncore_comm_t comm, const void *sendbuf,
                                       void *recvbuf, size_t count,
                                       ncore_dtype_t dtype, int root,
                                       ncore_stream_t stream);

NCORE_END_DECLS

#endif /* NCORE_COLL_H */
