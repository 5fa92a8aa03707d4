/* core/nccl — the collectives (coll.h): direct NCCL calls, each the NCCL
 * function its row of the table of operations (op_table.h) names (ncore's
 * dtype and built-in op values equal NCCL's, so they pass through
 * unchanged). */
#include "coll.h"

#include "../error.h"
#include "../op_table.h"
#include "custom_redop.h"
#include "group.h"
#include "wait.h"

/* ncclInProgress from an enqueue on a non-blocking communicator means
 * "queued": NCORE_IN_PROGRESS, and the next call waits (nccl_enqueued). */
#define enqueued(r, what, nc) nccl_enqueued(c, (r), (what))
/* NCCL's arguments after the datatype, by the row's (reduces, rooted), as
 * every NCCL collective takes them. */
#define NCCL_COLL_ARGS_00
#define NCCL_COLL_ARGS_10 , op
#define NCCL_COLL_ARGS_01 , a->root
#define NCCL_COLL_ARGS_11 , op, a->root
#define NCCL_COLL_CASE(name, KIND, nccl, go, reduces, rooted, send, recv,     \
                       count_name, in_place)                                  \
  case CORE_COLL_##KIND:                                                      \
    return enqueued(nccl_fn.coll_##name(a->sendbuf, a->recvbuf, a->count,     \
                                 t NCCL_COLL_ARGS_##reduces##rooted, nc, s),  \
                    #nccl, nc);

/* One collective, as NCCL's call for a->kind (its row of op_table.h), on
 * stream s. */
static ncore_status_t collective_on(nccl_comm_t *c, const core_coll_args_t *a,
                                    cudaStream_t s) {
  ncclDataType_t t = (ncclDataType_t)a->dtype;
  ncclRedOp_t op = a->custom_op ? a->custom_op->op : (ncclRedOp_t)a->op;
  ncclComm_t nc = c->nccl;
  switch (a->kind) {
    CORE_OPERATIONS(NCCL_COLL_CASE, CORE_OP_NONE, CORE_OP_NONE)
    case CORE_COLL_KINDS:
      break;
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
