/* core/nccl — the collectives (coll.h): direct NCCL calls (ncore's dtype
 * and built-in op values equal NCCL's, so they pass through unchanged). */
#include "coll.h"

#include "../error.h"
#include "custom_redop.h"
#include "group.h"
#include "wait.h"

/* ncclInProgress from an enqueue on a non-blocking communicator means
 * "queued": NCORE_IN_PROGRESS, and the next call waits (nccl_enqueued). */
#define enqueued(r, what, nc) nccl_enqueued(c, (r), (what))
/* One collective, as NCCL's call for a->kind, on stream s. */
static ncore_status_t collective_on(nccl_comm_t *c, const core_coll_args_t *a,
                                    cudaStream_t s) {
  ncclDataType_t t = (ncclDataType_t)a->dtype;
  ncclRedOp_t op = a->custom_op ? a->custom_op->op : (ncclRedOp_t)a->op;
  ncclComm_t nc = c->nccl;
  switch (a->kind) {
    case CORE_COLL_ALLREDUCE:
      return enqueued(nccl_fn.ncclAllReduce(a->sendbuf, a->recvbuf, a->count,
                                            t, op, nc, s), "ncclAllReduce", nc);
    case CORE_COLL_BROADCAST:
      return enqueued(nccl_fn.ncclBroadcast(a->sendbuf, a->recvbuf, a->count,
                                            t, a->root, nc, s),
                      "ncclBroadcast", nc);
    case CORE_COLL_REDUCE:
      return enqueued(nccl_fn.ncclReduce(a->sendbuf, a->recvbuf, a->count, t,
                                         op, a->root, nc, s), "ncclReduce", nc);
    case CORE_COLL_ALLGATHER:
      return enqueued(nccl_fn.ncclAllGather(a->sendbuf, a->recvbuf, a->count,
                                            t, nc, s), "ncclAllGather", nc);
    case CORE_COLL_REDUCE_SCATTER:
      return enqueued(nccl_fn.ncclReduceScatter(a->sendbuf, a->recvbuf,
                                                a->count, t, op, nc, s),
                      "ncclReduceScatter", nc);
    case CORE_COLL_ALLTOALL:
      return enqueued(nccl_fn.ncclAlltoAll(a->sendbuf, a->recvbuf, a->count, t,
                                           nc, s), "ncclAlltoAll", nc);
    case CORE_COLL_GATHER:
      return enqueued(nccl_fn.ncclGather(a->sendbuf, a->recvbuf, a->count, t,
                                         a->root, nc, s), "ncclGather", nc);
    case CORE_COLL_SCATTER:
      return enqueued(nccl_fn.ncclScatter(a->sendbuf, a->recvbuf, a->count, t,
                                          a->root, nc, s), "ncclScatter", nc);
  }
  return core_error(NCORE_ERR_INTERNAL, "kind: unknown collective %d",
                    (int)a->kind);
}

ncore_status_t nccl_collective(core_backend_comm_t *comm,
                               const core_coll_args_t *a) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  cudaStream_t s = (cudaStream_t)a->stream;
  if (!c->legacy_stream_detour || !nccl_stream_is_legacy(s))
    return collective_on(c, a, s);
  /* NCCL before 2.29.7 runs copy-engine collectives (CTA policy ZERO over
   * symmetric windows) with cudaMemcpyBatchAsync, which refuses the legacy
   * default stream: "Cuda failure 'invalid argument'" (2.29.7 falls back to
   * cudaMemcpyAsync there, ce_coll.cc). Such a call runs on the calling
   * thread's per-thread default stream instead, which the legacy stream
   * synchronises with both ways (a blocking stream), and the legacy stream
   * then waits for it: the order and a later synchronisation of the legacy
   * stream are as if it had run there. */
  status = collective_on(c, a, (cudaStream_t)CU_STREAM_PER_THREAD);
  if (status == NCORE_OK || status == NCORE_IN_PROGRESS) {
    ncore_status_t joined = nccl_join_legacy_stream(c->ctx);
    if (joined != NCORE_OK) return joined;
  }
  return status;
}
