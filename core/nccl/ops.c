/* core/nccl — point-to-point, the eight collectives, registered buffers and
 * PreMulSum operators: direct NCCL calls (ncore's dtype and built-in op
 * values equal NCCL's, so they pass through unchanged). */
#include <stdlib.h>

#include "../error.h"
#include "nccl_internal.h"
#include "nccl_ops.h"

/* ncclInProgress from an enqueue on a non-blocking communicator means
 * "queued": NCORE_IN_PROGRESS, and the next call waits (nccl_enqueued). */
#define enqueued(r, what, nc) nccl_enqueued(c, (r), (what))

/* Send, recv and the collectives do not make the communicator's context
 * current (nccl_comm_enter): NCCL switches to the communicator's device
 * itself when it enqueues and launches, as a caller of raw NCCL relies on,
 * and the stream check has already tied the stream to that device. That
 * keeps every driver call off the path (issue 15); the thread's current
 * device stays what the caller had, as with raw NCCL. */
ncore_status_t nccl_send(void *comm, const void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  return enqueued(nccl_fn.ncclSend(buf, count, (ncclDataType_t)dtype, peer,
                                   c->nccl, (cudaStream_t)stream),
                  "ncclSend", c->nccl);
}

ncore_status_t nccl_recv(void *comm, void *buf, size_t count,
                         ncore_dtype_t dtype, int peer, ncore_stream_t stream) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_check_live(c);
  if (status != NCORE_OK) return status;
  return enqueued(nccl_fn.ncclRecv(buf, count, (ncclDataType_t)dtype, peer,
                                   c->nccl, (cudaStream_t)stream),
                  "ncclRecv", c->nccl);
}

/* One collective, as NCCL's call for a->kind, on stream s. */
static ncore_status_t collective_on(nccl_comm_t *c, const core_coll_args_t *a,
                                    cudaStream_t s) {
  ncclDataType_t t = (ncclDataType_t)a->dtype;
  /* A custom op's impl holds its ncclRedOp_t. */
  ncclRedOp_t op = a->custom_op ? *(ncclRedOp_t *)a->custom_op
                                : (ncclRedOp_t)a->op;
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

ncore_status_t nccl_collective(void *comm, const core_coll_args_t *a) {
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

ncore_status_t nccl_buffer_register(void *comm, void *ptr, size_t size,
                                    void **out, uintptr_t *native) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  void *handle = NULL;
  status = nccl_check(nccl_fn.ncclCommRegister(c->nccl, ptr, size, &handle),
                      "ncclCommRegister", c->nccl);
  if (status != NCORE_OK) return status;
  *out = handle;
  *native = (uintptr_t)handle;
  return NCORE_OK;
}

void nccl_buffer_deregister(void *comm, void *buffer) {
  nccl_comm_t *c = comm;
  /* After an abort the ncclComm_t is going away with its registrations. */
  if (atomic_load(&c->aborted)) return;
  cu_fn.CtxSetCurrent(c->ctx);
  (void)nccl_fn.ncclCommDeregister(c->nccl, buffer);
}

ncore_status_t nccl_redop_create_pre_mul_sum(void *comm, const void *scalar,
                                             ncore_dtype_t dtype,
                                             ncore_scalar_residence_t residence,
                                             void **out) {
  nccl_comm_t *c = comm;
  ncore_status_t status = nccl_comm_enter(c);
  if (status != NCORE_OK) return status;
  ncclRedOp_t *op = malloc(sizeof *op);
  if (op == NULL) return core_error(NCORE_ERR_SYSTEM, "out of memory");
  /* ncore's residence values equal ncclScalarResidence_t (device 0, host
   * immediate 1): NCCL copies a host scalar now, and reads a device one at
   * each collective. */
  status = nccl_check(nccl_fn.ncclRedOpCreatePreMulSum(
                          op, (void *)scalar, (ncclDataType_t)dtype,
                          (ncclScalarResidence_t)residence, c->nccl),
                      "ncclRedOpCreatePreMulSum", c->nccl);
  if (status != NCORE_OK) {
    free(op);
    return status;
  }
  *out = op;
  return NCORE_OK;
}

void nccl_redop_destroy(void *comm, void *op) {
  nccl_comm_t *c = comm;
  if (!atomic_load(&c->aborted)) {
    cu_fn.CtxSetCurrent(c->ctx);
    (void)nccl_fn.ncclRedOpDestroy(*(ncclRedOp_t *)op, c->nccl);
  }
  free(op);
}
